import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APP_CONFIG_KEYS } from '../../src/app/app-config-keys.js';
import { packageOf, reachableFiles, specifiersOf, tsFilesUnder } from './imports.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('layering', () => {
  it('src/protocol imports nothing from src/hub', () => {
    const offending: string[] = [];
    for (const file of tsFilesUnder(join(root, 'src/protocol'))) {
      for (const spec of specifiersOf(file)) {
        if (resolve(dirname(file), spec).startsWith(join(root, 'src/hub'))) offending.push(`${relative(root, file)} → ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('src/host imports nothing from the areas built on it (ingestion, hub, security, transports, the app, …)', () => {
    const host = join(root, 'src/host');
    const areas = readdirSync(join(root, 'src'))
      .map((name) => join(root, 'src', name))
      .filter((dir) => dir !== host && statSync(dir).isDirectory());
    expect(areas.map((dir) => relative(root, dir))).toEqual(
      expect.arrayContaining(['src/app', 'src/backplane', 'src/hub', 'src/ingest', 'src/security', 'src/simulator', 'src/transport']),
    );
    const offending: string[] = [];
    for (const file of tsFilesUnder(host)) {
      for (const spec of specifiersOf(file)) {
        const target = resolve(dirname(file), spec);
        if (areas.some((dir) => target.startsWith(dir + sep))) offending.push(`${relative(root, file)} → ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it("every key in the app's configuration is declared exactly once, in one area's list", () => {
    const names = APP_CONFIG_KEYS.map((d) => d.key.toLowerCase());
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    // Declared in source exactly once: no area keeps a copy of another's definition.
    const sources = tsFilesUnder(join(root, 'src')).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
    const counts = APP_CONFIG_KEYS.map(({ key }) => {
      const declaration = new RegExp(`\\bkey:\\s*['"]${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`, 'gi');
      const where = sources.flatMap(({ file, text }) => (text.match(declaration) ?? []).map(() => relative(root, file)));
      return { key, where };
    });
    expect(counts.filter((c) => c.where.length !== 1)).toEqual([]);
  });

  it('functions/ declares every package its code, the shared files it compiles, and its tests import', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'functions/package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);
    const built = reachableFiles(tsFilesUnder(join(root, 'functions/src')));
    // Its tests run the hub as the Web PubSub service they call; only their own imports count.
    const tests = tsFilesUnder(join(root, 'functions/test'));
    const missing = new Set<string>();
    for (const file of [...built, ...tests]) {
      for (const spec of specifiersOf(file)) {
        const pkg = packageOf(spec);
        if (pkg !== undefined && !declared.has(pkg)) missing.add(`${pkg} (${relative(root, file)})`);
      }
    }
    expect([...missing]).toEqual([]);
    // The closure really reaches into the shared code (the check would pass vacuously otherwise).
    expect([...built].some((f) => f.includes(`${join(root, 'src')}/`))).toBe(true);
  });
});
