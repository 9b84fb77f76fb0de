import type { Sql } from '../db/database.js';
import type { Reading } from '../protocol/reading.js';
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

/**
 * Per bucket (aligned to the epoch, UTC): the readings' count and min/max/avg of each numeric
 * top-level field, aggregated in SQL so a week of per-second readings leaves the database as a
 * few thousand rows.
 */
export async function series(sql: Sql, args: SeriesArgs): Promise<SeriesPoint[]> {
  const { rows } = await sql.query<{ b: number; n: number; f: string | null; mn: number; mx: number; av: number }>(
    `with r as (
       select floor((extract(epoch from ts) * 1000) / $4)::float8 as b, data
       from readings
       where device_id = $1 and ts >= ${EPOCH_MS('$2::bigint')} and ts < ${EPOCH_MS('$3::bigint')}
     ),
     counts as (select b, count(*)::int as n from r group by b),
     fields as (
       select r.b, kv.key as f, min(kv.value::float8) as mn, max(kv.value::float8) as mx, avg(kv.value::float8) as av
       from r cross join lateral jsonb_each(r.data) as kv
       where jsonb_typeof(kv.value) = 'number'
       group by r.b, kv.key
     )
     select c.b, c.n, f.f, f.mn, f.mx, f.av from counts c left join fields f on f.b = c.b order by c.b, f.f`,
    [args.deviceId, args.from, args.to, args.bucketMs],
  );
  const points: SeriesPoint[] = [];
  for (const row of rows) {
    const t = Number(row.b) * args.bucketMs;
    let point = points[points.length - 1];
    if (point === undefined || point.t !== t) {
      point = { t, count: Number(row.n), fields: {} };
      points.push(point);
    }
    if (row.f !== null) point.fields[row.f] = { min: Number(row.mn), max: Number(row.mx), avg: Number(row.av) };
  }
  return points;
}
