import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tsFilesUnder } from './imports.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLOCK = 'src/host/clock.ts';

/** Reads of the current time that bypass the injected clock: calls and references alike (`now = Date.now`). */
const TIME_READ = /\bDate\.now\b|\bperformance\.now\b|\bnew Date\(\s*\)|\bprocess\.hrtime\b/g;

/** The time reads in a file's code; comments may still say what the clock stands for. */
export function timeReadsIn(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return code.match(TIME_READ) ?? [];
}

// One clock (docs/architecture.md, rule 7): a part that reads the time itself cannot be moved by a
// test's manual clock, and its deadlines jump with the wall clock.
describe('one clock', () => {
  it('no file in src/ but the clock reads the current time itself', () => {
    const offenders = tsFilesUnder(join(root, 'src'))
      .map((file) => relative(root, file))
      .filter((file) => file !== CLOCK)
      .flatMap((file) => timeReadsIn(readFileSync(join(root, file), 'utf8')).map((read) => `${file}: ${read}`));
    expect(offenders).toEqual([]);
  });

  it('the check sees a planted read, in any form, and not one in a comment', () => {
    expect(timeReadsIn('const t = Date.now();')).toEqual(['Date.now']);
    expect(timeReadsIn('const { now = Date.now } = options;')).toEqual(['Date.now']);
    expect(timeReadsIn('const start = performance.now();')).toEqual(['performance.now']);
    expect(timeReadsIn('const d = new Date();')).toEqual(['new Date()']);
    expect(timeReadsIn('const d = new Date(ms);')).toEqual([]);
    expect(timeReadsIn('/** Default `Date.now()`. */\n// performance.now() would jump\nconst x = 1;')).toEqual([]);
  });

  it('the clock itself is where the time is read', () => {
    expect(timeReadsIn(readFileSync(join(root, CLOCK), 'utf8')).length).toBeGreaterThan(0);
  });
});
