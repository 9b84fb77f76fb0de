import type { Reading } from '../../wire/reading.js';

/**
 * Readings cross into SQL as one JSON parameter expanded with jsonb_to_recordset: one round trip
 * per batch, no SQL built from values. Times (epoch ms, fractions allowed: a device's `ts` may
 * carry microseconds) become timestamptz by interval arithmetic, exact to the microsecond
 * timestamptz keeps.
 */
export const EPOCH_MS = (column: string): string => `(timestamptz 'epoch' + ${column} * interval '1 millisecond')`;
/** timestamptz → epoch ms as a JS number on both engines (extract gives an exact numeric). */
export const TO_MS = (column: string): string => `(extract(epoch from ${column}) * 1000)::float8`;

/** The columns a stored reading is read back with (see `toReading`). */
export const READING_COLUMNS = `device_id, seq::float8 as seq, ${TO_MS('ts')} as ts, ${TO_MS('received_at')} as received_at, data`;

export interface ReadingRow {
  device_id: string;
  seq: number;
  ts: number;
  received_at: number;
  data: Record<string, unknown>;
}

export function toReading(tenantId: string, row: ReadingRow): Reading {
  return {
    tenantId,
    deviceId: row.device_id,
    seq: Number(row.seq),
    ts: Number(row.ts),
    receivedAt: Number(row.received_at),
    data: row.data,
  };
}

export function readingsParameter(readings: readonly Reading[]): string {
  return JSON.stringify(readings.map((r) => ({ d: r.deviceId, s: r.seq, t: r.ts, r: r.receivedAt, j: r.data })));
}

/** A reading's minute (its `ts`, UTC, aligned to the epoch): the rollups' bucket. */
export const MINUTE_OF = (column: string): string =>
  `(timestamptz 'epoch' + floor(extract(epoch from ${column}) / 60) * interval '1 minute')`;

/**
 * Stores the readings and merges the ones actually inserted into the per-minute rollups, in one
 * statement: a retried batch inserts nothing again and so counts nothing twice. Rollup rows go in
 * key order, so concurrent batches lock shared rows in one order and never deadlock.
 */
export const INSERT_READINGS = `with ins as (
  insert into readings (tenant_id, device_id, seq, ts, received_at, data)
  select current_setting('app.tenant_id'), x.d, x.s, ${EPOCH_MS('x.t')}, ${EPOCH_MS('x.r')}, x.j
  from jsonb_to_recordset($1::jsonb) as x(d text, s bigint, t float8, r float8, j jsonb)
  on conflict do nothing
  returning device_id, ${MINUTE_OF('ts')} as minute, data
),
parts as (
  select device_id, minute, null::text as field, count(*) as n, null::float8 as mn, null::float8 as mx, null::float8 as sm
  from ins group by device_id, minute
  union all
  select ins.device_id, ins.minute, kv.key, count(*), min(kv.value::float8), max(kv.value::float8), sum(kv.value::float8)
  from ins cross join lateral jsonb_each(ins.data) as kv
  where jsonb_typeof(kv.value) = 'number' and abs(kv.value::numeric) < 1e308
  group by ins.device_id, ins.minute, kv.key
)
insert into reading_rollups as u (tenant_id, device_id, minute, field, count, min, max, sum)
select current_setting('app.tenant_id'), device_id, minute, field, n, mn, mx, sm from parts
order by device_id, minute, field nulls first
on conflict (tenant_id, device_id, minute, field) do update set
  count = u.count + excluded.count,
  min = least(u.min, excluded.min),
  max = greatest(u.max, excluded.max),
  sum = u.sum + excluded.sum`;

/**
 * The newest reading per device of a batch, merged so a retried or reordered batch never moves a
 * device back: last_seq only grows, last_reading follows it, first_seen only moves earlier.
 */
export const UPSERT_DEVICES = `insert into devices as d (tenant_id, device_id, first_seen, last_seen, last_seq, last_reading)
select current_setting('app.tenant_id'), x.d, ${EPOCH_MS('x.f')}, ${EPOCH_MS('x.r')}, x.s, x.j
from jsonb_to_recordset($1::jsonb) as x(d text, f float8, r float8, s bigint, j jsonb)
on conflict (tenant_id, device_id) do update set
  first_seen = least(d.first_seen, excluded.first_seen),
  last_seen = greatest(d.last_seen, excluded.last_seen),
  last_reading = case when excluded.last_seq > d.last_seq then excluded.last_reading else d.last_reading end,
  last_seq = greatest(d.last_seq, excluded.last_seq)`;

export function devicesParameter(readings: readonly Reading[]): string {
  const newest = new Map<string, { first: number; last: Reading }>();
  for (const r of readings) {
    const seen = newest.get(r.deviceId);
    if (seen === undefined) newest.set(r.deviceId, { first: r.receivedAt, last: r });
    else {
      seen.first = Math.min(seen.first, r.receivedAt);
      if (r.seq > seen.last.seq) seen.last = r;
    }
  }
  return JSON.stringify(
    // In device order, so concurrent batches lock shared device rows in the same order and never deadlock.
    [...newest.values()]
      .sort((a, b) => (a.last.deviceId < b.last.deviceId ? -1 : a.last.deviceId > b.last.deviceId ? 1 : 0))
      .map(({ first, last }) => ({
        d: last.deviceId,
        f: first,
        r: last.receivedAt,
        s: last.seq,
        j: { seq: last.seq, ts: last.ts, receivedAt: last.receivedAt, data: last.data },
      })),
  );
}
