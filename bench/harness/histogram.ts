/** Latency summary in ms. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Fixed-bucket latency histogram: 0.05 ms buckets up to 10 s, constant memory, O(1) record.
 * Negative samples (clock offset error) count as 0.
 */
export class Histogram {
  static readonly BUCKET_MS = 0.05;
  readonly #buckets = new Uint32Array(200_001);
  #count = 0;
  #max = 0;

  record(ms: number): void {
    const v = ms > 0 ? ms : 0;
    const i = Math.min(this.#buckets.length - 1, Math.floor(v / Histogram.BUCKET_MS));
    this.#buckets[i]!++;
    this.#count++;
    if (v > this.#max) this.#max = v;
  }

  reset(): void {
    this.#buckets.fill(0);
    this.#count = 0;
    this.#max = 0;
  }

  summary(): LatencySummary {
    return { count: this.#count, p50: this.percentile(0.5), p99: this.percentile(0.99), max: this.#max };
  }

  percentile(q: number): number {
    if (this.#count === 0) return NaN;
    const target = Math.ceil(q * this.#count);
    let seen = 0;
    for (let i = 0; i < this.#buckets.length; i++) {
      seen += this.#buckets[i]!;
      if (seen >= target) return (i + 1) * Histogram.BUCKET_MS;
    }
    return this.#max;
  }
}
