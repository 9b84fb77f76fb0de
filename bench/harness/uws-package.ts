import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The µWebSockets anchor's package, pinned by version and by the integrity npm recorded when it
 * was a dev dependency. `uwebsockets` is a third party's build of uWebSockets.js (that project
 * publishes nothing on npm): 54 prebuilt addons, 98 MB packed, 257 MB unpacked. Only the bench's
 * anchor uses it, so `npm ci` no longer installs it for everyone; the bench fetches it on demand.
 */
export const UWS_PACKAGE = {
  name: 'uwebsockets',
  version: '3.0.6',
  integrity: 'sha512-0Nw22DDOd1YGnJ8/IHYVCDHZXAVqLnjBxktl2bSjcJRVcgasb2Zs8WCRhL41IydraLLq001c6ycHdIS+rEcAxw==',
} as const;

export type UwsPackage = { readonly name: string; readonly version: string; readonly integrity: string };

/** Downloads the package's tarball into `dir` and returns its path (default: `npm pack`, npm's own registry settings). */
export type FetchTarball = (spec: string, dir: string) => Promise<string>;

/** `bench/.cache/` (ignored by git) at the repository root, whether this module runs from dist/bench or bench. */
const CACHE_ROOT = (() => {
  const up = fileURLToPath(new URL('../../', import.meta.url));
  return /[\\/]dist[\\/]$/.test(up) ? join(up, '..', 'bench', '.cache') : join(up, 'bench', '.cache');
})();

/** Where the anchor's package is unpacked: this platform's addon, `uws.js`, `package.json` and the licence. */
export const UWS_DIR = join(CACHE_ROOT, `${UWS_PACKAGE.name}-${UWS_PACKAGE.version}`);

/** The one addon uws.js loads on this platform and Node ABI. */
export const UWS_ADDON = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;

const MARKER = '.integrity';

/**
 * Makes the anchor's package loadable from `dir`: fetched once (then kept), its tarball checked
 * against the pinned sha512 before anything is unpacked, and loaded once here so a wrong glibc
 * shows now. Resolves with undefined when the anchor can run, or with the note the bench prints
 * when it runs without it (no network, another integrity, no build for this platform or glibc).
 */
export async function prepareUws(
  options: { pkg?: UwsPackage; dir?: string; fetchTarball?: FetchTarball } = {},
): Promise<string | undefined> {
  const { pkg = UWS_PACKAGE, dir = UWS_DIR, fetchTarball = npmPack } = options;
  const skipped = (why: string) => `µWebSockets anchor skipped: ${why}`;
  if (!unpacked(dir, pkg)) {
    mkdirSync(join(dir, '..'), { recursive: true });
    const work = mkdtempSync(`${dir}.partial-`);
    try {
      let tarball: string;
      try {
        tarball = await fetchTarball(`${pkg.name}@${pkg.version}`, work);
      } catch (err) {
        return skipped(`${pkg.name}@${pkg.version} could not be fetched (${firstLine(err)})`);
      }
      const actual = await integrityOf(tarball);
      if (actual !== pkg.integrity)
        return skipped(
          `${pkg.name}@${pkg.version}'s tarball is not the pinned one (integrity ${actual}, expected ${pkg.integrity}); nothing was unpacked`,
        );
      const into = join(work, 'package');
      mkdirSync(into);
      try {
        await run('tar', [
          '-xzf',
          tarball,
          '-C',
          into,
          '--strip-components=1',
          'package/package.json',
          'package/LICENSE',
          'package/uws.js',
          `package/${UWS_ADDON}`,
        ]);
      } catch (err) {
        return skipped(
          `${pkg.name}@${pkg.version} has no build for ${process.platform}/${process.arch} on Node ABI ${process.versions.modules} (${firstLine(err)})`,
        );
      }
      writeFileSync(join(into, MARKER), pkg.integrity);
      rmSync(dir, { recursive: true, force: true });
      renameSync(into, dir);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  try {
    loadUws(dir);
    return undefined;
  } catch (err) {
    return skipped(`${pkg.name}@${pkg.version} does not load here (${firstLine(err)})`);
  }
}

/** The anchor's package (a native CommonJS addon, hence require). */
export function loadUws<T = unknown>(dir = UWS_DIR): T {
  return createRequire(import.meta.url)(dir) as T;
}

function unpacked(dir: string, pkg: UwsPackage): boolean {
  const marker = join(dir, MARKER);
  return existsSync(marker) && readFileSync(marker, 'utf8') === pkg.integrity && existsSync(join(dir, UWS_ADDON));
}

/** `sha512-<base64>`, the form of npm's `integrity` fields. */
export async function integrityOf(file: string): Promise<string> {
  const hash = createHash('sha512');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha512-${hash.digest('base64')}`;
}

/** `npm pack SPEC` into `dir`: the registry, proxy and certificates npm is configured with. */
async function npmPack(spec: string, dir: string): Promise<string> {
  // Under `npm run`, npm_execpath is the npm that runs us; otherwise the one on PATH.
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm?.endsWith('.js') ? [process.execPath, [npm]] : ['npm', []];
  try {
    const { stdout } = await run(cmd, [...args, 'pack', spec, '--pack-destination', dir, '--loglevel=error'], {
      timeout: 300_000,
      maxBuffer: 1 << 20,
    });
    return join(dir, stdout.trim().split('\n').pop()!);
  } catch (err) {
    // npm says why on stderr ("npm error code ECONNREFUSED"); the exec error only names the command.
    const said = String((err as { stderr?: string }).stderr ?? '')
      .split('\n')
      .find((l) => l.startsWith('npm error'));
    throw new Error(said ?? firstLine(err));
  }
}

function firstLine(err: unknown): string {
  return String((err as Error).message ?? err).split('\n')[0]!;
}
