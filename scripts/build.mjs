// The build every npm script runs first: compiles only when a source is newer than the last build,
// and then reports on stderr alone, so `$(npm run -s token …)` captures the command's output and
// nothing else. Fresh: it says nothing and takes milliseconds (tsc -b's own up-to-date check reads
// every file and its build info, seconds on a busy machine). `--force` builds regardless.
// Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const root = process.cwd();
const force = process.argv.includes('--force');

/**
 * The API explorer's files (Swagger UI) beside the built server: the package is a dev dependency,
 * so a production install holds these 1.9 MB instead of its 12 MB.
 */
function copyApiExplorer() {
  const from = join(root, 'node_modules', 'swagger-ui-dist');
  const to = join(root, 'dist', 'api-explorer');
  mkdirSync(to, { recursive: true });
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'LICENSE', 'NOTICE']) copyFileSync(join(from, file), join(to, file));
  return true;
}

/**
 * Two outputs, each with its inputs and a stamp written when it was last built from them. The
 * dashboard imports the wire types, so `src/wire` is among its inputs.
 */
const TARGETS = [
  {
    name: 'server',
    inputs: ['src', 'functions/src', 'bench', 'test/support', 'test/fixtures', 'tsconfig.json', 'package.json', 'package-lock.json'],
    output: 'dist/src/main.js',
    steps: [['typescript/bin/tsc', '-b'], copyApiExplorer],
  },
  {
    name: 'dashboard',
    inputs: ['web-client/src', 'web-client/index.html', 'web-client/vite.config.ts', 'web-client/tsconfig.json', 'src/wire', 'package-lock.json'],
    output: 'dist/web-client/index.html',
    steps: [
      ['typescript/bin/tsc', '-p', 'web-client/tsconfig.json'],
      ['vite/bin/vite.js', 'build', '--config', 'web-client/vite.config.ts', '--logLevel', 'warn'],
    ],
    when: 'web-client',
  },
];

const stampOf = (target) => join(root, 'dist', `.built-${target.name}`);

function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function stale(target) {
  if (target.when !== undefined && !existsSync(join(root, target.when))) return false;
  if (force) return true;
  const builtAt = existsSync(join(root, target.output)) ? mtime(stampOf(target)) : 0;
  return target.inputs.some((input) => newest(join(root, input)) > builtAt);
}

/** One build at a time per checkout: a second command waits for the first one's build, then finds it fresh. */
async function withLock(work) {
  const lock = join(root, 'dist', '.build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A build killed half-way leaves its lock behind; none takes this long.
      if (Date.now() - mtime(lock) > 15 * 60_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`build: ${lock} is held by another build; remove it if none runs`);
      await sleep(200);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function build(target) {
  process.stderr.write(`build: ${target.name}: ${force ? 'building' : 'sources changed since the last build; building'}\n`);
  const startedAt = new Date();
  for (const step of target.steps) {
    if (typeof step === 'function') {
      if (!step()) return false;
      continue;
    }
    const [bin, ...args] = step;
    // The tools' own output goes to stderr: stdout belongs to the command that runs after the build.
    const result = spawnSync(process.execPath, [join(root, 'node_modules', bin), ...args], { cwd: root, stdio: ['ignore', 2, 2] });
    if (result.status !== 0) return false;
  }
  // The stamp carries the start time: a source saved during the build makes the next run build again.
  const stamp = stampOf(target);
  writeFileSync(stamp, '');
  utimesSync(stamp, startedAt, startedAt);
  return true;
}

let ok = true;
if (TARGETS.some(stale)) {
  ok = await withLock(async () => {
    for (const target of TARGETS) if (stale(target) && !build(target)) return false;
    return true;
  });
}
process.exit(ok ? 0 : 1);
