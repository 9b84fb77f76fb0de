import { callError, type HubClient } from './hub-client';

/** One bucket of `GET /v1/devices/{id}/series` (contract v2 "History"): per numeric field, min/max/avg. */
export interface SeriesPoint {
  /** Bucket start, epoch ms. */
  t: number;
  count: number;
  fields: Record<string, { min: number; max: number; avg: number }>;
}

export interface Series {
  bucketMs: number;
  points: SeriesPoint[];
}

/** The buckets the API takes (`1s` … `1d`), smallest first. */
const BUCKETS: readonly (readonly [string, number])[] = [
  ['1s', 1_000],
  ['5s', 5_000],
  ['10s', 10_000],
  ['30s', 30_000],
  ['1m', 60_000],
  ['5m', 300_000],
  ['10m', 600_000],
  ['30m', 1_800_000],
  ['1h', 3_600_000],
  ['6h', 21_600_000],
  ['1d', 86_400_000],
];

/** Points a chart gets at most: a few hundred draw every trend a plot a few hundred pixels wide can show. */
export const MAX_POINTS = 400;

/** The finest bucket that keeps `rangeMs` within `maxPoints` points (1 h → 10s, 24 h → 5m, 7 d → 30m). */
export function bucketFor(rangeMs: number, maxPoints = MAX_POINTS): string {
  for (const [name, ms] of BUCKETS) if (rangeMs / ms <= maxPoints) return name;
  return '1d';
}

/**
 * The device's stored history between `from` and `to` (epoch ms), bucketed for a chart
 * (`GET /v1/devices/{deviceId}/series`). Malformed points are skipped.
 */
export async function fetchSeries(client: HubClient, deviceId: string, from: number, to: number): Promise<Series> {
  const {
    data: body,
    error,
    response,
  } = await client.GET('/v1/devices/{deviceId}/series', {
    params: {
      path: { deviceId },
      query: { from: String(Math.floor(from)), to: String(Math.ceil(to)), bucket: bucketFor(to - from) },
    },
    headers: { accept: 'application/json' },
  });
  if (!body) throw callError(response, error, `History of ${deviceId}`);
  const points: unknown[] = Array.isArray(body.points) ? body.points : [];
  return { bucketMs: typeof body.bucketMs === 'number' ? body.bucketMs : 0, points: points.filter(isPoint) };
}

function isPoint(p: unknown): p is SeriesPoint {
  const v = p as Partial<SeriesPoint> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.t === 'number' &&
    Number.isFinite(v.t) &&
    typeof v.fields === 'object' &&
    v.fields !== null
  );
}

/** Chart rows of a series: each bucket at its start, each field at its average. */
export function seriesRows(series: Series): { t: number; values: Map<string, number> }[] {
  return series.points.map((p) => {
    const values = new Map<string, number>();
    for (const [name, f] of Object.entries(p.fields))
      if (typeof f?.avg === 'number' && Number.isFinite(f.avg)) values.set(name, f.avg);
    return { t: p.t, values };
  });
}
