import { jsonTextTooDeep, MAX_JSON_DEPTH } from '../protocol/json-depth.js';
import { isValidId, type Reading } from '../protocol/reading.js';
import type { DropReason } from './drop-reason.js';
import { parseTimestamp } from './parse-timestamp.js';
import type { RawReading } from './source.js';

/** Contract "Device ingestion": payload limits. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

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
  if (jsonTextTooDeep(text, MAX_JSON_DEPTH)) {
    return { ok: false, reason: 'too_deep' };
  }

  const object = parsed as Record<string, unknown>;
  const rawTs = object['ts'];
  // Without `ts` the parsed object is the data as it is; with it, a copy leaves `ts` out
  // (deleting it instead would turn the object into a slow dictionary).
  let data = object;
  if (rawTs !== undefined) {
    const { ts: _ts, ...rest } = object;
    data = rest;
  }
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
