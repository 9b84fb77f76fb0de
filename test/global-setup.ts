import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
/** The built entries the lifecycle tests run as real processes. */
const ENTRIES = ['dist/src/main.js', 'dist/test/fixtures/lifecycle-host.js', 'dist/src/tools/migrate-cli.js'];

/**
 * Builds once before any test (`tsc -b`, incremental), so the lifecycle tests run today's code.
 * Type errors are printed but only missing entries stop the run: tsc still emits, and a colleague's
 * half-finished file should not block unrelated suites (`npm test` builds strictly first anyway).
 */
export default function setup(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-b'], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(`global-setup: tsc -b reported errors:\n${result.stdout}${result.stderr}\n`);
  }
  const missing = ENTRIES.filter((e) => !existsSync(join(root, e)));
  if (missing.length > 0) throw new Error(`global-setup: build did not produce ${missing.join(', ')}`);
  makeDatabaseTemplate();
}

/**
 * The migrated embedded database the hubs under test start from (test/support/embedded-database.ts):
 * remade when a migration changes, with the real `npm run migrate` entry.
 */
function makeDatabaseTemplate(): void {
  const template = join(root, 'dist', 'test-embedded-database');
  const migrations = join(root, 'migrations');
  const hash = createHash('sha256');
  for (const file of readdirSync(migrations).sort()) hash.update(file).update(readFileSync(join(migrations, file)));
  const digest = hash.digest('hex');
  const stamp = join(root, 'dist', 'test-embedded-database.sha256');
  if (existsSync(template) && existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return;
  rmSync(template, { recursive: true, force: true });
  const result = spawnSync(
    process.execPath,
    [join(root, 'dist/src/tools/migrate-cli.js'), `--Database:DataDirectory=${template}`],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, HUB_ENVIRONMENT: 'Development' },
    },
  );
  if (result.status !== 0)
    throw new Error(`global-setup: migrating the test database template failed:\n${result.stdout}${result.stderr}`);
  writeFileSync(stamp, digest);
}
