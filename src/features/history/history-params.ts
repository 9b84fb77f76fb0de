import { parseTimestamp } from '../../wire/parse-timestamp.js';
import { isValidId } from '../../host/ids.js';

export type Order = 'asc' | 'desc';

export interface ReadingsArgs {
  deviceId: string;
  /** Inclusive, epoch ms (device time `ts`). */
  from: number | undefined;
  /** Exclusive, epoch ms. */
  to: number | undefined;
  limit: number;
  order: Order;
  /** Continue strictly after this `seq` in `order`. */
  afterSeq: number | undefined;
}

export interface SeriesArgs {
  deviceId: string;
  from: number;
  to: number;
  bucketMs: number;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; errors: Record<string, string> };

/** A series answers at most this many buckets: a 7-day chart at 1-minute buckets (10 080) fits. */
export const MAX_BUCKETS = 20_000;
const DAY = 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: DAY };

/** `from`/`to`: epoch ms or ISO 8601 (a date-time without offset is UTC). */
function time(raw: string | null, errors: Record<string, string>, name: string): number | undefined {
  if (raw === null || raw === '') return undefined;
  const value = /^-?\d+$/.test(raw) ? parseTimestamp(Number(raw)) : parseTimestamp(raw);
  if (value === undefined) errors[name] = 'must be epoch milliseconds or an ISO 8601 date-time';
  return value;
}

function device(raw: string | undefined, errors: Record<string, string>): string {
  if (!isValidId(raw)) errors.deviceId = 'must be a device id (letters, digits, _ . -, up to 64)';
  return raw ?? '';
}

export function encodeCursor(order: Order, seq: number): string {
  return Buffer.from(`${order}:${seq}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string, order: Order): number | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const m = /^(asc|desc):(\d{1,15})$/.exec(text);
  // The round trip makes the decoder strict (it skips characters it does not know).
  if (m === null || m[1] !== order || encodeCursor(order, Number(m[2])) !== cursor) return undefined;
  return Number(m[2]);
}

export function bindReadings(deviceId: string | undefined, query: URLSearchParams): Outcome<ReadingsArgs> {
  const errors: Record<string, string> = {};
  const id = device(deviceId, errors);
  const from = time(query.get('from'), errors, 'from');
  const to = time(query.get('to'), errors, 'to');
  if (from !== undefined && to !== undefined && from >= to && !errors.from && !errors.to)
    errors.to = 'must be later than from';
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? 100 : Number(rawLimit);
  if (rawLimit !== null && (!/^\d+$/.test(rawLimit) || limit < 1 || limit > 1000))
    errors.limit = 'must be an integer from 1 to 1000';
  const rawOrder = query.get('order') ?? 'desc';
  if (rawOrder !== 'asc' && rawOrder !== 'desc') errors.order = 'must be asc or desc';
  const order: Order = rawOrder === 'asc' ? 'asc' : 'desc';
  const cursor = query.get('cursor');
  let afterSeq: number | undefined;
  if (cursor !== null && cursor !== '' && !errors.order) {
    afterSeq = decodeCursor(cursor, order);
    if (afterSeq === undefined) errors.cursor = 'is not one this API returned for this order';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { deviceId: id, from, to, limit, order, afterSeq } };
}

/** `bucket`: a whole number of s, m, h or d, from 1s to 1d. `to` defaults to now, `from` to a day before `to`. */
export function bindSeries(deviceId: string | undefined, query: URLSearchParams, now: number): Outcome<SeriesArgs> {
  const errors: Record<string, string> = {};
  const id = device(deviceId, errors);
  const to = time(query.get('to'), errors, 'to') ?? now;
  const from = time(query.get('from'), errors, 'from') ?? to - DAY;
  if (from >= to && !errors.from && !errors.to) errors.to = 'must be later than from';
  const rawBucket = query.get('bucket');
  let bucketMs = 0;
  if (rawBucket === null || rawBucket === '') errors.bucket = 'is required: 1s to 1d (e.g. 10s, 1m, 15m, 1h, 1d)';
  else {
    const m = /^(\d{1,5})([smhd])$/.exec(rawBucket);
    bucketMs = m ? Number(m[1]) * UNIT_MS[m[2]!]! : 0;
    if (!m || bucketMs < 1000 || bucketMs > DAY) errors.bucket = 'must be 1s to 1d (e.g. 10s, 1m, 15m, 1h, 1d)';
  }
  if (!errors.bucket && !errors.from && !errors.to && Math.ceil((to - from) / bucketMs) > MAX_BUCKETS) {
    errors.bucket = `is too small for the range: at most ${MAX_BUCKETS} buckets`;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, value: { deviceId: id, from, to, bucketMs } };
}
