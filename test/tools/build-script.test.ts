// Issue 30 item 5: the scripts build only when a source is newer than dist/, and say nothing when
// they do not. Run on a small project of its own (a package.json, a tsconfig.json and one source
// file, the repository's node_modules beside them), so the test never rebuilds the checkout.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'build-script-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'src'));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        target: 'ES2022',
        rootDir: '.',
        outDir: 'dist',
        incremental: true,
        tsBuildInfoFile: 'dist/.tsbuildinfo',
        types: [],
        skipLibCheck: true,
      },
      include: ['src/**/*.ts'],
    }),
  );
  writeFileSync(join(dir, 'src', 'main.ts'), 'export const answer: number = 42;\n');
  return dir;
}

const build = (cwd: string) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd, encoding: 'utf8' });

describe('scripts/build.mjs (the build every npm script runs first)', () => {
  it('builds when dist/ is missing or older than a source, and is silent and leaves dist/ alone otherwise', () => {
    const dir = project();
    const output = join(dir, 'dist', 'src', 'main.js');

    const first = build(dir);
    expect(first.status).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/build: server: sources changed since the last build; building/);
    const builtAt = statSync(output).mtimeMs;

    const fresh = build(dir);
    expect(fresh).toMatchObject({ status: 0, stdout: '', stderr: '' });
    expect(statSync(output).mtimeMs).toBe(builtAt);

    // A source saved after the build: built again, the tools' output on stderr only.
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const answer: number = 43;\n');
    const later = new Date(Date.now() + 2000);
    utimesSync(join(dir, 'src', 'main.ts'), later, later);
    const stale = build(dir);
    expect(stale.status).toBe(0);
    expect(stale.stdout).toBe('');
    expect(stale.stderr).toMatch(/building/);
    expect(
      spawnSync(process.execPath, ['-e', `import(${JSON.stringify(output)}).then((m) => console.log(m.answer))`], {
        encoding: 'utf8',
      }).stdout,
    ).toBe('43\n');
  }, 180_000);

  it('fails on a compile error, reports it on stderr, and tries again next time', () => {
    const dir = project();
    writeFileSync(join(dir, 'src', 'main.ts'), 'export const answer: number = "no";\n');
    const broken = build(dir);
    expect(broken.status).toBe(1);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toMatch(/TS2322/);
    expect(build(dir).stderr).toMatch(/building/);
  }, 120_000);
});
