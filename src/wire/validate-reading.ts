import { jsonTextTooDeep, MAX_JSON_DEPTH } from './json-depth.js';
import type { Reading } from './reading.js';
import { isValidId } from '../host/ids.js';
import type { DropReason } from './drop-reason.js';
import { parseTimestamp } from './parse-timestamp.js';
import type { RawReading } from './raw-reading.js';

/** Contract "Device ingestion": payload limits. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

/** A reading that passed validation; the pipeline assigns `seq`. */
export type ValidReading = Omit<Reading, 'seq'>;

export type ValidationResult = { ok: true; value: ValidReading } | { ok: false; reason: DropReason };

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Checks one raw reading against the contract (see `readingOf`); the result says why a reading was dropped.
 */
export function validateReading(raw: RawReading, nowMs: number): ValidationResult {
  const reading = readingOf(raw, nowMs);
  if (typeof reading === 'string') return { ok: false, reason: reading };
  const { seq: _seq, ...value } = reading;
  return { ok: true, value };
}

/**
 * Checks one raw reading against the contract, cheapest checks first: ids, size (before any
 * decoding), UTF-8, JSON, top-level object, nesting depth, `ts`. `nowMs` becomes `receivedAt`,
 * and `ts` when the device sent none. Every field but `ts` is data. Never throws.
 *
 * The hot path of ingestion: it returns the reading itself (seq 0 until the pipeline assigns it)
 * or the drop reason, so a valid reading costs one parse and one object, no result wrapper.
 */
export function readingOf(raw: RawReading, nowMs: number): Reading | DropReason {
  if (!isValidId(raw.tenantId)) return 'bad_tenant_id';
  if (!isValidId(raw.deviceId)) return 'bad_device_id';
  if (raw.payload.byteLength > MAX_PAYLOAD_BYTES) return 'too_large';

  let text: string;
  try {
    text = utf8.decode(raw.payload);
  } catch {
    return 'bad_utf8';
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return 'bad_json';
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return 'not_object';
  if (jsonTextTooDeep(text, MAX_JSON_DEPTH)) return 'too_deep';

  const object = parsed as Record<string, unknown>;
  const rawTs = object['ts'];
  let ts = nowMs;
  // Without `ts` the parsed object is the data as it is; with it, a copy leaves `ts` out
  // (deleting it instead would turn the object into a slow dictionary).
  let data = object;
  if (rawTs !== undefined) {
    const parsedTs = parseTimestamp(rawTs);
    if (parsedTs === undefined) return 'bad_ts';
    ts = parsedTs;
    const { ts: _ts, ...rest } = object;
    data = rest;
  }
  // Spelled out in the contract's order, traceparent last: one object shape for every reading.
  const reading: Reading = { tenantId: raw.tenantId, deviceId: raw.deviceId, seq: 0, ts, receivedAt: nowMs, data };
  if (raw.traceparent !== undefined) reading.traceparent = raw.traceparent;
  return reading;
}
