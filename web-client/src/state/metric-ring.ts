/**
 * A time-ordered ring of rows: one time column plus one Float64Array column per metric, sharing the ring's
 * indices (a ring buffer per metric, kept aligned because uPlot wants aligned data). NaN = no value.
 * Grows by doubling while its oldest row is still wanted, up to `maxRows`; then the oldest row is overwritten,
 * so memory is bounded by the time window and, for very fast devices, by `maxRows`.
 * A gap row holds `GAP` (+Infinity, which no finite metric value can be) in every column.
 */
export const GAP = Number.POSITIVE_INFINITY;

export class MetricRing {
  private time: Float64Array;
  private readonly cols = new Map<string, Float64Array>();
  private start = 0;
  length = 0;

  constructor(
    private capacity = 256,
    readonly maxRows = 20_000,
  ) {
    this.time = new Float64Array(capacity);
  }

  get metrics(): string[] {
    return [...this.cols.keys()];
  }

  hasMetric(name: string): boolean {
    return this.cols.has(name);
  }

  /** Adds a column; earlier rows have no value for it. */
  addMetric(name: string): void {
    if (this.cols.has(name)) return;
    this.cols.set(name, new Float64Array(this.capacity).fill(Number.NaN));
  }

  /** Appends a row; metrics missing from `values` get NaN. `t` must not be below the newest row's. */
  push(t: number, values: ReadonlyMap<string, number>): void {
    if (this.length === this.capacity) {
      if (this.capacity < this.maxRows) this.grow();
      else this.dropOldest(1);
    }
    const i = (this.start + this.length) % this.capacity;
    this.time[i] = t;
    for (const [name, col] of this.cols) col[i] = values.get(name) ?? Number.NaN;
    this.length++;
  }

  /** Appends a row that marks missing data: charts break their lines there. */
  pushGap(t: number): void {
    this.push(t, new Map([...this.cols.keys()].map((k) => [k, GAP])));
  }

  /** Drops rows older than `cutoff`. */
  evictBefore(cutoff: number): void {
    let n = 0;
    while (n < this.length && (this.time[(this.start + n) % this.capacity] ?? 0) < cutoff) n++;
    if (n) this.dropOldest(n);
  }

  timeAt(i: number): number {
    return this.time[(this.start + i) % this.capacity] ?? Number.NaN;
  }

  valueAt(metric: string, i: number): number {
    return this.cols.get(metric)?.[(this.start + i) % this.capacity] ?? Number.NaN;
  }

  get newestTime(): number {
    return this.length ? this.timeAt(this.length - 1) : Number.NEGATIVE_INFINITY;
  }

  private dropOldest(n: number): void {
    this.start = (this.start + n) % this.capacity;
    this.length -= n;
  }

  private grow(): void {
    const next = Math.min(this.maxRows, this.capacity * 2);
    this.time = this.unroll(this.time, next, 0);
    for (const [name, col] of this.cols) this.cols.set(name, this.unroll(col, next, Number.NaN));
    this.start = 0;
    this.capacity = next;
  }

  /** Copies the ring into a larger array, oldest row first. */
  private unroll(src: Float64Array, size: number, fill: number): Float64Array {
    const dst = new Float64Array(size).fill(fill);
    for (let k = 0; k < this.length; k++) dst[k] = src[(this.start + k) % this.capacity] ?? fill;
    return dst;
  }
}
