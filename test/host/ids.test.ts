import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ID_HTML_PATTERN, ID_PATTERN, isValidId } from '../../src/host/ids.js';

/** isValidId is the contract's id pattern written as a loop: it must agree with the pattern on every input. */
describe('isValidId', () => {
  const near = fc.stringMatching(/^[A-Za-z0-9_.\-/ \n\u00e9]{0,70}$/);
  const anyId = fc.oneof(
    fc.string({ maxLength: 70 }),
    fc.string({ unit: 'grapheme', maxLength: 70 }),
    fc.stringMatching(ID_PATTERN),
    near,
  );

  it('accepts exactly the strings the contract pattern matches', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        expect(isValidId(id)).toBe(ID_PATTERN.test(id));
      }),
      { numRuns: 20_000 },
    );
  });

  it('holds at the edges: length 64 and 65, a leading separator, a trailing newline, non-strings', () => {
    expect(isValidId('a'.repeat(64))).toBe(true);
    expect(isValidId('a'.repeat(65))).toBe(false);
    expect(isValidId('')).toBe(false);
    expect(isValidId('-dev')).toBe(false);
    expect(isValidId('dev_1.a-b')).toBe(true);
    expect(isValidId('dev\n')).toBe(false);
    expect(isValidId(undefined)).toBe(false);
    expect(isValidId(42)).toBe(false);
  });
});

describe('ID_HTML_PATTERN', () => {
  // As a browser compiles an input's pattern attribute: anchored, with the v flag.
  const html = new RegExp(`^(?:${ID_HTML_PATTERN})$`, 'v');

  it('lets a form accept exactly the ids the hub accepts', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 70 }),
          fc.stringMatching(ID_PATTERN),
          fc.stringMatching(/^[A-Za-z0-9_.\-/ ]{0,70}$/),
        ),
        (id) => {
          expect(html.test(id)).toBe(ID_PATTERN.test(id));
        },
      ),
      { numRuns: 5_000 },
    );
  });
});
