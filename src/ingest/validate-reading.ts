import { isValidId, type Reading } from '../protocol/reading.js';
import type { DropReason } from './drop-reason.js';
import { parseTimestamp } from './parse-timestamp.js';
import type { RawReading } from './source.js';

/** Contract "Device ingestion": payload limits. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;
export const MAX_JSON_DEPTH = 32;

/** A reading that passed validation; the pipeline assigns `seq`. */
export type ValidReading = Omit<Reading, 'seq'>;

export type ValidationResult = { ok: true; value: ValidReading } | { ok: false; reason: DropReason };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks one raw reading against the contract, cheapest checks first: ids, size (before any
 * decoding), UTF-8, JSON, top-level object, nesting depth, `ts`. `nowMs` becomes `receivedAt`,
 * and `ts` when the device sent none. Every field but `ts` is data. Never throws.
 */
export function validateReading(raw: RawReading, nowMs: number): ValidationResult {
  if (!isValidId(raw.tenantId)) return { ok: false, reason: 'bad_tenant_id' };
  if (!isValidId(raw.deviceId)) return { ok: false, reason: 'bad_device_id' };
  if (raw.payload.byteLength > MAX_PAYLOAD_BYTES) return { ok: false, reason: 'too_large' };

  let text: string;
  try {
    text = utf8.decode(raw.payload);
  } catch {
    return { ok: false, reason: 'bad_utf8' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'bad_json' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, reason: 'not_object' };
  }
  if (openingBrackets(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH && jsonDepth(text) > MAX_JSON_DEPTH) {
    return { ok: false, reason: 'too_deep' };
  }

  const { ts: rawTs, ...data } = parsed as Record<string, unknown>;
  let ts = nowMs;
  if (rawTs !== undefined) {
    const parsedTs = parseTimestamp(rawTs);
    if (parsedTs === undefined) return { ok: false, reason: 'bad_ts' };
    ts = parsedTs;
  }
  const value: ValidReading = { tenantId: raw.tenantId, deviceId: raw.deviceId, ts, receivedAt: nowMs, data };
  if (raw.traceparent !== undefined) value.traceparent = raw.traceparent;
  return { ok: true, value };
}

/**
 * `{` and `[` in the text (inside strings too), counted with native indexOf and only up to
 * `limit + 1`: a text with at most `limit` of them cannot nest deeper than `limit`, so a typical
 * reading skips jsonDepth's character loop.
 */
function openingBrackets(text: string, limit: number): number {
  let n = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i !== -1 && n <= limit; i = text.indexOf(bracket, i + 1)) n++;
  }
  return n;
}

/**
 * Deepest bracket nesting of a text already known to be valid JSON: one linear pass, no
 * recursion, so a 16 KiB payload of `[[[[…` costs a loop, not a stack.
 */
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
