import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
/** The built entries the lifecycle tests run as real processes. */
const ENTRIES = ['dist/src/main.js', 'dist/test/fixtures/lifecycle-host.js'];

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
}
