import type { Sql } from '../storage/database.js';
import type { Reading } from '../../wire/reading.js';
import type { ReadingsArgs, SeriesArgs } from './history-params.js';
import { EPOCH_MS, READING_COLUMNS, toReading, type ReadingRow } from './reading-rows.js';

/** Does the current tenant have this device? (Row-level security hides every other tenant's.) */
export async function deviceExists(sql: Sql, deviceId: string): Promise<boolean> {
  return (await sql.query('select 1 from devices where device_id = $1', [deviceId])).rows.length > 0;
}

/**
 * One page of a device's readings in `seq` order. A reading is committed in `seq` order per
 * device, so a cursor on `seq` neither repeats nor skips while readings keep arriving.
 * Returns one more than `limit` when more follow.
 */
export async function readingsPage(sql: Sql, tenantId: string, args: ReadingsArgs): Promise<Reading[]> {
  const params: unknown[] = [args.deviceId];
  const where = ['device_id = $1'];
  if (args.afterSeq !== undefined) {
    params.push(args.afterSeq);
    where.push(`seq ${args.order === 'asc' ? '>' : '<'} $${params.length}`);
  }
  if (args.from !== undefined) {
    params.push(args.from);
    where.push(`ts >= ${EPOCH_MS(`$${params.length}::bigint`)}`);
  }
  if (args.to !== undefined) {
    params.push(args.to);
    where.push(`ts < ${EPOCH_MS(`$${params.length}::bigint`)}`);
  }
  params.push(args.limit + 1);
  const text = `select ${READING_COLUMNS} from readings where ${where.join(' and ')} order by seq ${args.order} limit $${params.length}`;
  return (await sql.query<ReadingRow>(text, params)).rows.map((row) => toReading(tenantId, row));
}

export interface SeriesPoint {
  t: number;
  count: number;
  fields: Record<string, { min: number; max: number; avg: number }>;
}

const MINUTE = 60_000;

type SeriesRow = { b: number; n: number; f: string | null; mn: number | null; mx: number | null; av: number | null };

/** The device's readings within `range`, as their bucket `b` ($4 ms wide) and `data`. */
const rawRows = (range: string) =>
  `select floor((extract(epoch from ts) * 1000) / $4)::float8 as b, data from readings where device_id = $1 and (${range})`;

/** Per bucket of `r`: a NULL-field row with the readings' count, then count/min/max/sum per numeric field. */
const rawParts = `select r.b, null::text as f, count(*)::float8 as n, null::float8 as mn, null::float8 as mx, null::float8 as sm from r group by r.b
     union all
     select r.b, kv.key, count(*)::float8, min(kv.value::float8), max(kv.value::float8), sum(kv.value::float8)
     from r cross join lateral jsonb_each(r.data) as kv
     where jsonb_typeof(kv.value) = 'number'
     group by r.b, kv.key`;

/**
 * Per bucket (aligned to the epoch, UTC): the readings' count and min/max/avg of each numeric
 * top-level field, aggregated in SQL so a week of per-second readings leaves the database as a
 * few thousand rows. A bucket of whole minutes reads the per-minute rollups for the whole minutes
 * of the range and raw readings only for the partial minutes at its ends; finer buckets read raw
 * readings, as does `source` 'raw' (which tests compare the rollups against).
 */
export async function series(sql: Sql, args: SeriesArgs, source: 'auto' | 'raw' = 'auto'): Promise<SeriesPoint[]> {
  const firstMinute = Math.ceil(args.from / MINUTE) * MINUTE;
  const endMinute = Math.floor(args.to / MINUTE) * MINUTE;
  const fromRollups = source === 'auto' && args.bucketMs % MINUTE === 0 && firstMinute < endMinute;
  const ts = (p: string) => EPOCH_MS(`${p}::bigint`);
  const { rows } = fromRollups
    ? await sql.query<SeriesRow>(
        `with r as (${rawRows(`(ts >= ${ts('$2')} and ts < ${ts('$5')}) or (ts >= ${ts('$6')} and ts < ${ts('$3')})`)}),
         parts as (
           ${rawParts}
           union all
           select floor((extract(epoch from minute) * 1000) / $4)::float8, field, count::float8, min, max, sum
           from reading_rollups where device_id = $1 and minute >= ${ts('$5')} and minute < ${ts('$6')}
         )
         select b, f, sum(n) as n, min(mn) as mn, max(mx) as mx, sum(sm) / sum(n) as av
         from parts group by b, f order by b, f nulls first`,
        [args.deviceId, args.from, args.to, args.bucketMs, firstMinute, endMinute],
      )
    : await sql.query<SeriesRow>(
        `with r as (${rawRows(`ts >= ${ts('$2')} and ts < ${ts('$3')}`)}),
         parts as (${rawParts})
         select b, f, n, mn, mx, sm / n as av from parts order by b, f nulls first`,
        [args.deviceId, args.from, args.to, args.bucketMs],
      );
  const points: SeriesPoint[] = [];
  for (const row of rows) {
    const t = Number(row.b) * args.bucketMs;
    let point = points[points.length - 1];
    if (point === undefined || point.t !== t) {
      point = { t, count: 0, fields: {} };
      points.push(point);
    }
    if (row.f === null) point.count = Number(row.n);
    else point.fields[row.f] = { min: Number(row.mn), max: Number(row.mx), avg: Number(row.av) };
  }
  return points;
}
