import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
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
