// Issue 30 item 5: `npm run watch` restarts the hub when a file it watches changes, and stops it on
// Ctrl-C. The change here is an appsettings.json in the working directory: a watched file whose
// change needs no compile, so the rebuild step is the (silent) up-to-date check.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ChildHost, EPHEMERAL, killChildren, ROOT } from '../host/support/child-host.js';
import { eventually } from '../support/app-harness.js';

const WATCH = join(ROOT, 'dist/src/dev/watch.js');
const dirs: string[] = [];
afterEach(killChildren);
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm run watch', () => {
  it('restarts the hub when a watched file changes, with the new settings; Ctrl-C stops both', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'watch-'));
    dirs.push(cwd);
    const watcher = new ChildHost(WATCH, EPHEMERAL, {}, { cwd });
    const first = Number((await watcher.waitFor(/hub started \(pid (\d+)\)/))[1]);
    await watcher.waitFor(/listening/, 30_000);

    expect(watcher.output).not.toMatch(/DEBUG[^\n]*configuration/);

    // The hub reads appsettings.json from the working directory; at Debug it logs its configuration.
    writeFileSync(join(cwd, 'appsettings.json'), JSON.stringify({ Logging: { LogLevel: { Default: 'Debug' } } }));
    const starts = () => [...watcher.output.matchAll(/hub started \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    await eventually(() => starts().length >= 2, 30_000, 'the hub started again');
    const second = starts()[1]!;
    expect(second).not.toBe(first);
    expect(watcher.output).toMatch(/watch: appsettings\.json changed; rebuilding/);
    await eventually(() => !alive(first), 20_000, 'the first hub exited');
    // The restarted hub runs with the changed file: its configuration shows at Debug.
    await watcher.waitFor(/DEBUG[^\n]*configuration/, 30_000);

    watcher.signal('SIGINT');
    expect(await watcher.exited).toEqual({ code: 0, signal: null });
    expect(alive(second)).toBe(false);
  }, 90_000);
});
