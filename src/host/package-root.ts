import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

let root: string | undefined;

/**
 * The package's root folder (the one holding package.json), whether the code runs compiled from
 * dist/ or from source under the test runner: where `migrations/` and `dist/web-client/` are found,
 * wherever in the tree the module asking lives.
 */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${import.meta.dirname}`);
    dir = up;
  }
  return (root = dir);
}
