/**
 * `npm run watch`: the hub in Development, rebuilt and restarted whenever a source changes — the
 * server's (`src/`, `migrations/`), the dashboard's (`web-client/`, served from its build) or an
 * `appsettings*.json` of the working directory. The build is `npm run build`'s, which compiles only
 * what is stale; a build that fails leaves the running hub alone until the next change.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import { commandLine } from '../host/command-line.js';
import { packageRoot } from '../host/package-root.js';

const WATCH_USAGE = `usage: npm run watch -- [--Section:Key=value ...]

The hub in Development (as npm start), rebuilt and restarted when a file under src/, web-client/ or
migrations/, or an appsettings*.json of the working directory, changes. A failed build leaves the
running hub as it is. The --Section:Key=value arguments go to the hub. Ctrl-C stops both.`;

const { configArgs } = commandLine({ name: 'watch', usage: WATCH_USAGE, options: {}, configArgs: true });

const root = packageRoot();
const contentRoot = process.cwd();
const say = (text: string): void => void process.stdout.write(`watch: ${text}\n`);
/** Editors save in bursts (a temporary file, a rename, the file): one rebuild for all of them. */
const SETTLE_MS = 300;

let hub: ChildProcess | undefined;
/** Every hub process not yet exited, the one being stopped included. */
const alive = new Set<ChildProcess>();
let stopping = false;

function startHub(): void {
  // Its own process group: the terminal's Ctrl-C reaches the watcher alone, which stops the hub once.
  hub = spawn(process.execPath, [join(root, 'dist/src/main.js'), '--environment=Development', ...configArgs], {
    cwd: contentRoot,
    stdio: 'inherit',
    detached: true,
  });
  say(`hub started (pid ${hub.pid})`);
  const child = hub;
  alive.add(child);
  child.once('exit', (code, signal) => {
    alive.delete(child);
    if (hub === child && !stopping) say(`hub exited (${signal ?? `code ${code}`}); it starts again on the next change`);
  });
}

/** SIGTERM, and the hub's own shutdown; SIGKILL if it has not exited within its timeout and a margin. */
function stopHub(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Stops every hub still running (the current one, and one a restart is stopping). */
const stopAll = (): Promise<unknown> => Promise.all([...alive].map(stopHub));

function build(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'scripts/build.mjs')], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('exit', (code) => resolve(code === 0));
    child.once('error', () => resolve(false));
  });
}

let timer: NodeJS.Timeout | undefined;
let running: Promise<void> | undefined;
let again = false;
const changed = new Set<string>();

function onChange(path: string): void {
  if (stopping) return;
  changed.add(path);
  clearTimeout(timer);
  timer = setTimeout(() => void cycle(), SETTLE_MS);
}

async function cycle(): Promise<void> {
  // A change during a rebuild is built after it: never two builds at once.
  if (running) {
    again = true;
    return;
  }
  const paths = [...changed];
  changed.clear();
  say(`${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ` and ${paths.length - 3} more` : ''} changed; rebuilding`);
  running = (async () => {
    if (!(await build())) {
      say('build failed; the hub keeps running the last good build');
      return;
    }
    const previous = hub;
    hub = undefined;
    if (previous) await stopHub(previous);
    if (!stopping) startHub();
  })();
  await running;
  running = undefined;
  if (again) {
    again = false;
    await cycle();
  }
}

const watchers: FSWatcher[] = [];
for (const dir of ['src', 'web-client', 'migrations']) {
  watchers.push(
    watch(join(root, dir), { recursive: true }, (_event, name) => name && onChange(join(dir, String(name)))),
  );
}
watchers.push(
  watch(contentRoot, (_event, name) => {
    if (name && /^appsettings(\.[^.]+)?\.json$/.test(String(name))) onChange(String(name));
  }),
);

let signals = 0;
const onSignal = (signal: NodeJS.Signals): void => {
  signals += 1;
  if (signals > 1) {
    for (const child of alive) child.kill('SIGKILL');
    process.exit(1);
  }
  stopping = true;
  say(`${signal} received; stopping the hub`);
  clearTimeout(timer);
  for (const w of watchers) w.close();
  void stopAll().then(() => process.exit(0));
};
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// Whatever ends the watcher, the hub it started does not outlive it.
process.on('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

startHub();
