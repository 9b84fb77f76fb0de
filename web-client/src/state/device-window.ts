import type { Reading } from '../../../src/wire/reading';
import { GAP, MetricRing } from './metric-ring';

/** Default sliding window of a followed device's chart. */
export const DEFAULT_WINDOW_MS = 5 * 60_000;

/** A stretch of time (epoch ms) where readings were missed while disconnected. */
export interface Gap {
  from: number;
  to: number;
}

/** uPlot's aligned data: x in seconds, then one array per metric (null = gap, undefined = no value). */
export type AlignedSeries = [number[], ...(number | null | undefined)[][]];

/** Top-level finite numbers of `data`: the chartable metrics. */
export function numericMetrics(data: Record<string, unknown>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(data)) if (typeof v === 'number' && Number.isFinite(v)) out.set(k, v);
  return out;
}

/**
 * The readings of one followed device inside a sliding time window, with the gaps where data was missed.
 * Accepts readings already de-duplicated by seq (see SeqGuard).
 */
export class DeviceWindow {
  ring: MetricRing;
  readonly gaps: Gap[] = [];
  /** Newest value per metric, for the large read-out. */
  readonly latest = new Map<string, number>();
  /** Bumped on every change, so views redraw only when something changed. */
  version = 0;
  /** Bumped when a metric appears, so charts know to rebuild their series. */
  metricsVersion = 0;
  private lastSeq: number | null = null;
  private reconnectPending = false;
  /** Time of the first reading pushed (not seeded): rows before it came from stored history. */
  private liveSince: number | null = null;

  constructor(
    public windowMs = DEFAULT_WINDOW_MS,
    maxRows?: number,
  ) {
    this.ring = new MetricRing(256, maxRows);
  }

  /** Call after every new connection: the next reading decides whether something was missed. */
  markReconnect(): void {
    if (this.ring.length) this.reconnectPending = true;
  }

  /** `values` may be passed when the caller already extracted them (saves work at high rates). */
  push(r: Reading, values: ReadonlyMap<string, number> = numericMetrics(r.data)): void {
    const prevT = this.ring.newestTime;
    // Device clocks can step back; uPlot needs ascending x, so never go below the newest row.
    const t = Math.max(r.ts, prevT);
    if (this.reconnectPending) {
      this.reconnectPending = false;
      // seq skipped ahead = readings went by unseen; seq went down = the hub restarted and we cannot know.
      const last = this.lastSeq;
      if (last !== null && (r.seq > last + 1 || r.seq < last)) {
        this.gaps.push({ from: prevT, to: t });
        this.ring.pushGap(prevT + (t - prevT) / 2);
      }
    }
    for (const name of values.keys()) {
      if (!this.ring.hasMetric(name)) {
        this.ring.addMetric(name);
        this.metricsVersion++;
      }
      this.latest.set(name, values.get(name) as number);
    }
    this.ring.push(t, values);
    this.liveSince ??= t;
    this.lastSeq = r.seq;
    this.evict(t);
    this.version++;
  }

  /**
   * Puts stored history (rows oldest first, e.g. bucket averages) before the readings that arrived live, in
   * place of any history seeded before: a long window opens filled, and live readings keep being appended.
   */
  seedHistory(rows: readonly { t: number; values: ReadonlyMap<string, number> }[]): void {
    const old = this.ring;
    const next = new MetricRing(256, old.maxRows);
    const liveFrom = this.liveSince ?? Number.POSITIVE_INFINITY;
    for (const name of old.metrics) next.addMetric(name);
    for (const row of rows) {
      if (row.t >= liveFrom) break;
      for (const name of row.values.keys()) {
        if (next.hasMetric(name)) continue;
        next.addMetric(name);
        this.metricsVersion++;
      }
      next.push(row.t, row.values);
    }
    // A metric only the history has still gets a read-out: its newest stored value.
    for (let i = rows.length - 1; i >= 0; i--) {
      const row = rows[i] as (typeof rows)[number];
      if (row.t >= liveFrom) continue;
      for (const [name, value] of row.values) if (!this.latest.has(name)) this.latest.set(name, value);
    }
    const metrics = next.metrics;
    for (let i = 0; i < old.length; i++) {
      const t = old.timeAt(i);
      if (t < liveFrom) continue;
      next.push(t, new Map(metrics.map((name) => [name, old.valueAt(name, i)])));
    }
    this.ring = next;
    this.version++;
  }

  /** Forgets what fell out of the window ending at `now` (epoch ms). */
  evict(now: number): void {
    const cutoff = now - this.windowMs;
    const before = this.ring.length;
    this.ring.evictBefore(cutoff);
    while (this.gaps.length && (this.gaps[0] as Gap).to < cutoff) this.gaps.shift();
    if (this.ring.length !== before) this.version++;
  }

  /**
   * Chart data for `metrics` (in that order) between `from` and `to` (epoch ms), reduced to at most about
   * `2 × buckets` rows: per time bucket the first row carries each metric's minimum and the last its maximum.
   * With one bucket per pixel column that draws the same envelope as all rows, at a fraction of the cost for
   * fast devices (a 5-minute window at 50 readings/s is 15 000 rows). Gap rows are always kept.
   */
  toAligned(metrics: readonly string[], from: number, to: number, buckets: number): AlignedSeries {
    const ring = this.ring;
    const n = ring.length;
    const m = metrics.length;
    const xs: number[] = [];
    const ys = metrics.map(() => [] as (number | null | undefined)[]);
    const emit = (t: number, vals: Float64Array | null) => {
      xs.push(t / 1000);
      for (let k = 0; k < m; k++) {
        const v = vals ? (vals[k] as number) : GAP;
        // null breaks the line (a gap); undefined lets it continue past rows that lacked this metric.
        (ys[k] as (number | null | undefined)[]).push(v === GAP ? null : Number.isNaN(v) ? undefined : v);
      }
    };
    if (n <= 2 * buckets) {
      const row = new Float64Array(m);
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < m; k++) row[k] = ring.valueAt(metrics[k] as string, i);
        emit(ring.timeAt(i), row[0] === GAP && m > 0 ? null : row);
      }
      return [xs, ...ys];
    }
    const width = Math.max(1, (to - from) / Math.max(1, buckets));
    const lo = new Float64Array(m);
    const hi = new Float64Array(m);
    let bucket = Number.NaN;
    let firstT = 0;
    let lastT = 0;
    let rows = 0;
    const flush = () => {
      if (rows === 0) return;
      emit(firstT, lo);
      if (rows > 1) emit(lastT, hi);
      rows = 0;
    };
    for (let i = 0; i < n; i++) {
      const t = ring.timeAt(i);
      if (m > 0 && ring.valueAt(metrics[0] as string, i) === GAP) {
        flush();
        emit(t, null);
        bucket = Number.NaN;
        continue;
      }
      const b = Math.floor((t - from) / width);
      if (b !== bucket) {
        flush();
        bucket = b;
        firstT = t;
        lo.fill(Number.NaN);
        hi.fill(Number.NaN);
      }
      lastT = t;
      rows++;
      for (let k = 0; k < m; k++) {
        const v = ring.valueAt(metrics[k] as string, i);
        if (Number.isNaN(v)) continue;
        if (!(v >= (lo[k] as number))) lo[k] = v;
        if (!(v <= (hi[k] as number))) hi[k] = v;
      }
    }
    flush();
    return [xs, ...ys];
  }
}
