import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Errors } from '../../src/host/errors.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
const catalogue = Object.values(Errors);

describe('error catalogue (src/host/errors.ts)', () => {
  it.each(catalogue.map((d) => [d.code, d.status]))('%s is documented in the README catalogue with its status', (code, status) => {
    // A table row: | `CODE` | status | meaning |  (start-up codes that never reach HTTP show –)
    const row = new RegExp(`^\\|\\s*\`${code}\`\\s*\\|\\s*(\\d{3}|–)\\s*\\|\\s*\\S`, 'm').exec(README);
    expect(row, `${code} has no row in README.md's error catalogue`).not.toBeNull();
    if (row![1] !== '–') expect(Number(row![1])).toBe(status);
  });

  it('every code the README names exists in the catalogue', () => {
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
