// Issue 30 item 7: the dashboard's bundle stays within a stated budget. What a browser downloads on
// a first visit, compressed as the hub sends it: index.html, the scripts (the serverless transport's
// chunk included) and the styles, gzip level 9, source maps left out (Production serves none).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const BUILD = join(ROOT, 'dist', 'web-client');

/**
 * 80 KiB gzip. Measured 75.4 KB (215.9 KB before compression) when the budget was set, with the
 * typed REST client; docs/development.md states the same number. Raise it only on purpose.
 */
const DASHBOARD_BUDGET_GZIP_BYTES = 80 * 1024;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

describe("the dashboard's bundle", () => {
  beforeAll(() => {
    // Today's dashboard (a no-op when the build is current).
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`build failed:\n${built.stderr}`);
  }, 180_000);

  it(`is at most ${DASHBOARD_BUDGET_GZIP_BYTES / 1024} KiB gzip, source maps left out`, () => {
    const served = files(BUILD).filter((f) => !f.endsWith('.map'));
    const sizes = served.map((f) => [relative(BUILD, f), gzipSync(readFileSync(f), { level: 9 }).length] as const);
    const total = sizes.reduce((sum, [, size]) => sum + size, 0);
    expect(sizes.map(([name]) => name)).toContain('index.html');
    expect(total, `gzip sizes: ${JSON.stringify(Object.fromEntries(sizes))}`).toBeLessThanOrEqual(
      DASHBOARD_BUDGET_GZIP_BYTES,
    );
  });
});
