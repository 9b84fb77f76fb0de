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

  /** The non-empty buckets as `[index, count]` pairs and the max: small enough to cross IPC. */
  sparse(): { buckets: [number, number][]; max: number } {
    const buckets: [number, number][] = [];
    for (let i = 0; i < this.#buckets.length; i++) if (this.#buckets[i]! > 0) buckets.push([i, this.#buckets[i]!]);
    return { buckets, max: this.#max };
  }

  /** Adds another process's samples (its `sparse()`), so several processes' latencies make one distribution. */
  merge(other: { buckets: [number, number][]; max: number }): void {
    for (const [i, n] of other.buckets) {
      this.#buckets[i]! += n;
      this.#count += n;
    }
    if (other.max > this.#max) this.#max = other.max;
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
      // A bucket's upper edge, but never above the largest sample (the top bucket holds it).
      if (seen >= target) return Math.min((i + 1) * Histogram.BUCKET_MS, this.#max);
    }
    return this.#max;
  }
}
