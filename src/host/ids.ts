/**
 * The one id pattern: tenants, devices, orders, customers, stamps (contract "Device ingestion"):
 * a letter or digit, then letters, digits, `_`, `.`, `-`, at most 64 in all. Names that follow the
 * same shape with another length (firmware files, instance ids) take it from `idPattern`.
 */
export const ID_PATTERN = idPattern(64);

/**
 * `ID_PATTERN` for an HTML input's `pattern` attribute: the browser anchors it itself and compiles it
 * with the `v` flag, where a `-` inside a class must be escaped.
 */
export const ID_HTML_PATTERN = ID_PATTERN.source.slice(1, -1).replace('-]', '\\-]');

/** The id shape with room for `maxLength` characters, e.g. firmware names (128). */
export function idPattern(maxLength: number): RegExp {
  return new RegExp(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,${maxLength - 1}}$`);
}

/**
 * `ID_PATTERN`, spelled out as a loop over char codes: ingestion checks two ids per reading, and
 * the loop costs a fraction of a regular expression call (test/wire fuzzes it against the pattern).
 */
export function isValidId(id: unknown): id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > 64) return false;
  if (!isAlphanumeric(id.charCodeAt(0))) return false;
  for (let i = 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!isAlphanumeric(c) && c !== UNDERSCORE && c !== DOT && c !== DASH) return false;
  }
  return true;
}

function isAlphanumeric(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

const UNDERSCORE = 0x5f;
const DOT = 0x2e;
const DASH = 0x2d;
