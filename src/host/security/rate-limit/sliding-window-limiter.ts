import { PartitionStore } from './partition-store.js';
import {
  checkPermits,
  checkPositiveInteger,
  type PartitionOptions,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.js';
import { systemClock } from '../../clock.js';

export interface SlidingWindowLimiterOptions extends PartitionOptions {
  /** Permits within any window. */
  permitLimit: number;
  /** Window length; must be a whole multiple of `segments` milliseconds. */
  windowMs: number;
  /** Segments per window; segments start at multiples of `windowMs / segments` on the clock. */
  segments: number;
}

interface SegmentState {
  /** Permits granted per segment, ring-indexed by absolute segment number. */
  counts: number[];
  /** Absolute number of the newest segment the ring describes. */
  head: number;
}

/**
 * `permitLimit` within the last `segments` segments. Permits granted in a segment come back when that
 * segment leaves the window, so no boundary lets twice the limit through (spec "Limits": 100 at 55 s
 * are counted until 110 s, and a burst at 61 s is rejected).
 */
export class SlidingWindowLimiter implements RateLimiter {
  private readonly permitLimit: number;
  private readonly segments: number;
  private readonly segmentMs: number;
  private readonly clock: () => number;
  private readonly partitions: PartitionStore<SegmentState>;

  constructor(options: SlidingWindowLimiterOptions) {
    checkPositiveInteger('permitLimit', options.permitLimit);
    checkPositiveInteger('windowMs', options.windowMs);
    checkPositiveInteger('segments', options.segments);
    this.segmentMs = options.windowMs / options.segments;
    checkPositiveInteger('windowMs / segments', this.segmentMs);
    this.permitLimit = options.permitLimit;
    this.segments = options.segments;
    this.clock = options.clock ?? systemClock.now;
    this.partitions = new PartitionStore(options.maxPartitions ?? 10_000, (s, now) => this.used(s, now) === 0);
  }

  /** Partitions currently held in memory. */
  get partitionCount(): number {
    return this.partitions.size;
  }

  tryAcquire(key: string, permits = 1, now = this.clock()): RateLimitResult {
    checkPermits(permits, this.permitLimit);
    const current = this.segmentOf(now);
    const state = this.partitions.get(key, now, () => ({
      counts: new Array<number>(this.segments).fill(0),
      head: current,
    }));
    this.advance(state, current);
    const used = state.counts.reduce((a, b) => a + b, 0);
    if (used + permits <= this.permitLimit) {
      state.counts[this.slot(state.head)]! += permits;
      return { ok: true };
    }
    // Walk from the oldest segment until enough permits would have left the window; at the latest,
    // the current segment frees everything, which suffices because permits <= permitLimit.
    let seg = state.head - this.segments + 1;
    for (let freed = state.counts[this.slot(seg)]!; used - freed + permits > this.permitLimit; ) {
      seg++;
      freed += state.counts[this.slot(seg)]!;
    }
    return { ok: false, retryAfterMs: (seg + this.segments) * this.segmentMs - now };
  }

  private used(state: SegmentState, now: number): number {
    const current = this.segmentOf(now);
    let sum = 0;
    for (let seg = Math.max(state.head - this.segments + 1, current - this.segments + 1); seg <= state.head; seg++) {
      sum += state.counts[this.slot(seg)]!;
    }
    return sum;
  }

  /** Zeroes the segments that left the window since `head`; a clock going backwards keeps `head`. */
  private advance(state: SegmentState, current: number): void {
    if (current <= state.head) return;
    const stale = Math.min(current - state.head, this.segments);
    for (let i = 1; i <= stale; i++) state.counts[this.slot(state.head + i)] = 0;
    state.head = current;
  }

  /** Ring index of an absolute segment; segments before the clock's zero map like any other. */
  private slot(segment: number): number {
    return ((segment % this.segments) + this.segments) % this.segments;
  }

  private segmentOf(now: number): number {
    return Math.floor(now / this.segmentMs);
  }
}
