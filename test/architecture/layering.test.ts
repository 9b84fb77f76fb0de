import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { APP_CONFIG_KEYS } from '../../src/compose/app-config-keys.js';
import { packageOf, reachableFiles, specifiersOf, tsFilesUnder } from './imports.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// The layer rules themselves are in layers.test.ts.
describe('configuration keys and functions/ packages', () => {
  it("every key in the app's configuration is declared exactly once, in one area's list", () => {
    const names = APP_CONFIG_KEYS.map((d) => d.key.toLowerCase());
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    // Declared in source exactly once: no area keeps a copy of another's definition.
    const sources = tsFilesUnder(join(root, 'src')).map((file) => ({ file, text: readFileSync(file, 'utf8') }));
    const counts = APP_CONFIG_KEYS.map(({ key }) => {
      const declaration = new RegExp(`\\bkey:\\s*['"]${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`, 'gi');
      const where = sources.flatMap(({ file, text }) =>
        (text.match(declaration) ?? []).map(() => relative(root, file)),
      );
      return { key, where };
    });
    expect(counts.filter((c) => c.where.length !== 1)).toEqual([]);
  });

  it('functions/ declares every package its code, the shared files it compiles, and its tests import', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'functions/package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
    ]);
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
