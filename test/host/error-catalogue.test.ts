import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Errors } from '../../src/host/errors.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'errors.md'), 'utf8');
const catalogue = Object.values(Errors);

describe('error catalogue (src/host/errors.ts)', () => {
  it.each(catalogue.map((d) => [d.code, d.status]))(
    '%s is documented in docs/errors.md with its status',
    (code, status) => {
      // A table row: | `CODE` | status | meaning |  (start-up codes that never reach HTTP show –)
      const row = new RegExp(`^\\|\\s*\`${code}\`\\s*\\|\\s*(\\d{3}|–)\\s*\\|\\s*\\S`, 'm').exec(README);
      expect(row, `${code} has no row in docs/errors.md's error catalogue`).not.toBeNull();
      if (row![1] !== '–') expect(Number(row![1])).toBe(status);
    },
  );

  it('every code docs/errors.md names exists in the catalogue', () => {
    const known = new Set(catalogue.map((d) => d.code));
    const named = new Set(README.match(/HUB_ERR_[A-Z_]+[A-Z]/g) ?? []);
    expect([...named].filter((c) => !known.has(c))).toEqual([]);
  });

  it('codes are HUB_ERR_<AREA>_<WHAT>, unique, with an HTTP status and a title', () => {
    expect(new Set(catalogue.map((d) => d.code)).size).toBe(catalogue.length);
    for (const d of catalogue) {
      expect(d.code).toMatch(/^HUB_ERR_[A-Z]+_[A-Z_]*[A-Z]$/);
      expect(d.status).toBeGreaterThanOrEqual(400);
      expect(d.status).toBeLessThan(600);
      expect(d.title.length).toBeGreaterThan(0);
    }
  });
});

describe('one error catalogue', () => {
  /** A code spelled out as a string of its own (`'HUB_ERR_X'`), not taken from the catalogue. */
  const spelledOut = (source: string): string[] => [...source.matchAll(/(['"])(HUB_ERR_[A-Z_]+)\1/g)].map((m) => m[2]!);
  const root = join(import.meta.dirname, '..', '..');

  it('no file in src/ but the catalogue spells out a code: each takes it from Errors', () => {
    const files = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && f !== join('host', 'errors.ts'),
    );
    const copies = files.flatMap((f) =>
      spelledOut(readFileSync(join(root, 'src', f), 'utf8')).map((code) => `src/${f}: ${code}`),
    );
    expect(copies).toEqual([]);
  });

  it('the check sees a planted copy, and not a code named in a doc string or a prefix test', () => {
    expect(spelledOut("const HUB_ERR = { limit: 'HUB_ERR_HUB_LIMIT' };")).toEqual(['HUB_ERR_HUB_LIMIT']);
    expect(spelledOut("doc: 'refused (`HUB_ERR_HUB_LIMIT`) at once'")).toEqual([]);
    expect(spelledOut("code.startsWith('HUB_ERR_')")).toEqual([]);
  });
});
