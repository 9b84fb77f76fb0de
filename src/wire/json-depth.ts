/**
 * Contract "Device ingestion": JSON nested at most 32 levels. The same cap guards every JSON a
 * client or the management API hands the hub (readings, sends, client frames, socket.io events):
 * encoders, the backplane's reviver and structured clone recurse, and a value nested 100 000
 * levels deep would overflow their stack.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * True when a JSON text nests brackets deeper than `max` (exact for valid JSON; for text not yet
 * parsed, a cheap refusal before the parser's much costlier pass over deep input). Counts `{` and
 * `[` first with native indexOf (only up to `max + 1`): a text with at most `max` of them cannot
 * nest deeper, so a typical message skips the character loop.
 */
export function jsonTextTooDeep(text: string, max: number = MAX_JSON_DEPTH): boolean {
  return openingBrackets(text, max) > max && jsonDepth(text) > max;
}

/**
 * True when a parsed value (arrays and plain objects) nests deeper than `max`, for values that
 * arrive already parsed (socket.io events). Iterative and stops at the first level past `max`, so
 * a deep value costs a loop, never a stack.
 */
export function jsonValueTooDeep(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null || ArrayBuffer.isView(node) || node instanceof ArrayBuffer) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

function openingBrackets(text: string, limit: number): number {
  let n = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1 && n <= limit; i = text.indexOf(bracket, i + 1)) n++;
  }
  return n;
}

/** Deepest bracket nesting of valid JSON text: one linear pass, no recursion. */
function jsonDepth(json: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) max = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
