import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { packageOf } from './imports.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const json = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));

interface Manifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scarfSettings?: { enabled?: boolean };
  allowScripts?: Record<string, boolean>;
}
interface Lockfile {
  packages: Record<
    string,
    {
      version?: string;
      dev?: boolean;
      hasInstallScript?: boolean;
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    }
  >;
}
const manifest = json('package.json') as Manifest;
const lock = json('package-lock.json') as Lockfile;

/** What a production install runs: the entries of `node dist/src/…` the README and the deployment name,
 *  and the embedded database's worker thread (started by file name, so no import reaches it). */
const PRODUCTION_ENTRIES = [
  'main',
  'worker',
  'gateway',
  'tools/migrate-cli',
  'tools/token',
  'simulator/cli',
  'adapters/pglite/pglite-worker',
].map((e) => join(root, 'dist/src', `${e}.js`));

/**
 * The packages the built JavaScript loads (type-only imports are gone from it): static and dynamic
 * imports, `require(…)` and `createRequire(…).resolve(…)`, through every relative import.
 */
function packagesReachedFrom(entries: readonly string[]): Map<string, string> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    const specifiers = ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
    for (const m of source.matchAll(/createRequire\([^)]*\)\.resolve\(\s*['"]([^'"]+)['"]/g)) specifiers.push(m[1]!);
    for (const spec of specifiers) {
      if (spec.startsWith('.')) queue.push(resolve(dirname(file), spec));
      else if (!isBuiltin(spec))
        packages.set(packageOf(spec)!, packages.get(packageOf(spec)!) ?? file.slice(root.length + 1));
    }
  }
  return packages;
}

/**
 * Every dependency with an install script, why it needs none, and the decision recorded for it in
 * package.json `allowScripts` (npm 11 runs a dependency's install script only when approved there;
 * older npm runs them all). A new one fails this test until someone has read it: an install script
 * runs with the installing user's rights on every `npm ci`.
 */
const INSTALL_SCRIPTS: Record<string, string> = {
  esbuild:
    'dev: checks its platform binary (an optional dependency) and links it over its JS launcher; esbuild finds the binary without it',
  '@scarf/scarf':
    'swagger-ui-dist’s install analytics, which report to a third party; for older npm also off by scarfSettings.enabled=false',
};

describe('dependencies', () => {
  it('the production entry points load only runtime dependencies, and every runtime dependency is loaded by one of them', () => {
    expect(PRODUCTION_ENTRIES.filter((e) => !existsSync(e))).toEqual([]);
    const reached = packagesReachedFrom(PRODUCTION_ENTRIES);
    const runtime = Object.keys(manifest.dependencies);
    expect(
      [...reached].filter(([pkg]) => !runtime.includes(pkg)).map(([pkg, by]) => `${pkg} (${by})`),
      'imported but not a runtime dependency',
    ).toEqual([]);
    expect(
      runtime.filter((pkg) => !reached.has(pkg)),
      'runtime dependencies no production entry loads',
    ).toEqual([]);
  });

  it('the serverless packages are functions/’ own and the tests’, not the hub’s', () => {
    for (const pkg of ['@azure/functions', '@azure/web-pubsub']) {
      expect(manifest.dependencies[pkg], pkg).toBeUndefined();
      expect(manifest.devDependencies[pkg], pkg).toBeDefined();
      expect(json('functions/package.json').dependencies[pkg], pkg).toBeDefined();
    }
  });

  it('no dependency runs an install script: each one in the lockfile is known and denied, and the one that reports installs is off for every npm', () => {
    const scripted = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(scripted.sort()).toEqual(Object.keys(INSTALL_SCRIPTS).sort());
    for (const name of scripted) expect(manifest.allowScripts?.[name], name).toBe(false);
    expect(manifest.scarfSettings?.enabled).toBe(false);
  });

  it('the bench’s µWebSockets anchor is not installed by npm ci (the bench fetches it into an ignored cache)', () => {
    expect(Object.keys(lock.packages).filter((p) => p.endsWith('node_modules/uwebsockets'))).toEqual([]);
    expect({ ...manifest.dependencies, ...manifest.devDependencies }).not.toHaveProperty('uwebsockets');
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain('bench/.cache/');
  });

  it('Biome is not installed by npm ci: its own lockfile in scripts/biome pins it, and lint and format run it from there', () => {
    expect(Object.keys(lock.packages).filter((p) => p.includes('node_modules/@biomejs/'))).toEqual([]);
    const tool = json('scripts/biome/package.json') as Manifest;
    const toolLock = json('scripts/biome/package-lock.json') as Lockfile & {
      packages: Record<string, { integrity?: string; resolved?: string }>;
    };
    const pinned = tool.devDependencies['@biomejs/biome'];
    expect(pinned, 'an exact version, not a range').toMatch(/^\d+\.\d+\.\d+$/);
    expect(toolLock.packages['node_modules/@biomejs/biome']?.version).toBe(pinned);
    const builds = Object.entries(toolLock.packages).filter(([p]) => p.startsWith('node_modules/'));
    expect(builds.map(([p]) => p)).toContain('node_modules/@biomejs/cli-linux-x64');
    for (const [path, entry] of builds) expect(entry.integrity, path).toMatch(/^sha512-/);
    for (const script of ['lint', 'format'])
      expect((manifest as unknown as { scripts: Record<string, string> }).scripts[script]).toMatch(
        /^node scripts\/biome\.mjs /,
      );
  });

  it('functions/ has a lockfile of its own, in step with its package.json', () => {
    const fnManifest = json('functions/package.json') as Manifest;
    const fnLock = json('functions/package-lock.json') as Lockfile;
    expect(fnLock.packages['']!.dependencies).toEqual(fnManifest.dependencies);
    expect(fnLock.packages['']!.devDependencies).toEqual(fnManifest.devDependencies);
    for (const pkg of Object.keys({ ...fnManifest.dependencies, ...fnManifest.devDependencies })) {
      expect(fnLock.packages[`node_modules/${pkg}`]?.version, pkg).toBeDefined();
    }
  });
});
