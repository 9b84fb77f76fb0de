// Runs Biome (npm run lint, npm run format) from its own pinned install in scripts/biome/.
//
// Biome's one native binary is 96 MB, a quarter of the project's whole install, and nothing builds,
// tests or runs with it. So it is not a dependency of the project: scripts/biome/package-lock.json
// pins its version and every platform build's integrity, and the first lint installs it there with
// `npm ci` (npm checks each tarball against that lockfile). Later runs reuse it until the lockfile
// changes.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = join(dirname(fileURLToPath(import.meta.url)), 'biome');
const lockfile = join(dir, 'package-lock.json');
const marker = join(dir, 'node_modules', '.installed-from');
const bin = join(dir, 'node_modules', '@biomejs', 'biome', 'bin', 'biome');

// The platform too: a checkout shared between two systems (a bind mount into a container) needs
// the other system's build.
const wanted = createHash('sha256')
  .update(readFileSync(lockfile))
  .update(`${process.platform}-${process.arch}-${process.report?.getReport().header.glibcVersionRuntime ?? 'musl'}`)
  .digest('hex');
if (!existsSync(bin) || !existsSync(marker) || readFileSync(marker, 'utf8') !== wanted) {
  process.stderr.write('installing Biome from scripts/biome/package-lock.json (first run, or the pin changed)\n');
  // Under `npm run`, npm_execpath is the npm that runs us; otherwise the one on PATH.
  const npm = process.env.npm_execpath;
  const viaNode = npm?.endsWith('.js') === true;
  const installed = spawnSync(
    viaNode ? process.execPath : 'npm',
    [
      ...(viaNode ? [npm] : []),
      'ci',
      '--prefix',
      dir,
      // Biome is this folder's dev dependency: installed even where NODE_ENV=production omits those.
      '--include=dev',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      '--loglevel=error',
    ],
    // stdout to stderr: `npm run -s lint` prints Biome's findings only. A shell only to find npm.cmd
    // on Windows (node.exe itself runs without one, whatever spaces its path holds).
    { stdio: ['ignore', 2, 2], shell: !viaNode && process.platform === 'win32' },
  );
  if (installed.status !== 0 || !existsSync(bin)) {
    process.stderr.write('Biome could not be installed (npm ci in scripts/biome failed; see above)\n');
    process.exit(1);
  }
  writeFileSync(marker, wanted);
}

const biome = spawn(process.execPath, [bin, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => biome.kill(signal));
biome.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
