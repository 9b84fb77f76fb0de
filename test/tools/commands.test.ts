// Issue 30 item 5: every command behaves — `--help` (exit 0, nothing else happens), `--version`,
// an unknown flag refused with its usage and exit 64 — run as the real processes npm runs.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
};
const exec = promisify(execFile);

/** Every npm script that runs our code, with the built entry it runs (`… && node dist/….js [args]`). */
const ENTRIES = Object.entries(pkg.scripts).flatMap(([script, command]) => {
  const m = /&&\s*node\s+(dist\/\S+\.js)((?:\s+--\S+)*)\s*$/.exec(command);
  return m ? [{ script, entry: m[1]!, fixed: m[2]!.trim().split(/\s+/).filter(Boolean) }] : [];
});

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Runs a built entry in an empty working directory; resolves with its exit code and output. */
function run(
  entry: string,
  args: string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, HUB_ENVIRONMENT: 'Development' };
    const child = spawn(process.execPath, [join(ROOT, entry), ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('every command', () => {
  it('covers every npm script that runs a built entry', () => {
    expect(ENTRIES.map((e) => e.script).sort()).toEqual(
      [
        'api:check',
        'bench',
        'capacity',
        'dev',
        'docs:config',
        'gateway',
        'migrate',
        'simulate',
        'soak',
        'start',
        'token',
        'watch',
        'worker',
      ].sort(),
    );
  });

  it.each(ENTRIES)(
    'npm run $script: --help, --version and an unknown flag, with no side effect',
    async ({ entry, fixed }) => {
      const cwd = mkdtempSync(join(tmpdir(), 'command-'));
      dirs.push(cwd);
      const docBefore = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
      const [help, version, unknown] = await Promise.all([
        run(entry, [...fixed, '--help'], cwd),
        run(entry, [...fixed, '--version'], cwd),
        run(entry, [...fixed, '--no-such-flag'], cwd),
      ]);

      expect(help).toMatchObject({ code: 0, stderr: '' });
      expect(help.stdout).toMatch(/^usage: /);
      expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
      expect(unknown.code).toBe(64);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toMatch(/'--no-such-flag'/);
      expect(unknown.stderr).toMatch(/\nusage: /);
      // Nothing started, written or created: no database, no archive, no regenerated document.
      expect(readdirSync(cwd)).toEqual([]);
      expect(readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8')).toBe(docBefore);
    },
    60_000,
  );

  it('a bad flag value is a usage error too (64), naming the flag', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'command-'));
    dirs.push(cwd);
    const result = await run('dist/src/dev/main.js', ['--instances', 'many'], cwd);
    expect(result.code).toBe(64);
    expect(result.stderr).toMatch(/^dev: --instances must be an integer/);
    expect(result.stderr).toMatch(/\nusage: npm run dev/);
  });
});

describe('npm run -s token', () => {
  it('prints the token alone: $(npm run -s token …) captures nothing else', async () => {
    const { stdout } = await exec('npm', ['run', '-s', 'token', '--', '--sub', 'alice', '--tenant', 'demo'], {
      cwd: ROOT,
      env: { ...process.env, HUB_ENVIRONMENT: 'Development' },
    });
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
  }, 60_000);
});
