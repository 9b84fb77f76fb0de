import { PartitionStore } from './partition-store.js';
import {
  checkPermits,
  checkPositiveInteger,
  type PartitionOptions,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.js';
import { systemClock } from '../../clock.js';

export interface FixedWindowLimiterOptions extends PartitionOptions {
  /** Permits per window. */
  permitLimit: number;
  /** Window length; windows start at multiples of it on the clock (a 60 s window resets on the minute). */
  windowMs: number;
}

interface WindowState {
  window: number;
  used: number;
}

/**
 * `permitLimit` per fixed window, all permits back when the window ends. Cheap, but allows up to twice
 * the limit across a window boundary (spec "Limits": bursts at 55 s and 61 s are both allowed).
 */
export class FixedWindowLimiter implements RateLimiter {
  private readonly permitLimit: number;
  private readonly windowMs: number;
  private readonly clock: () => number;
  private readonly partitions: PartitionStore<WindowState>;

  constructor(options: FixedWindowLimiterOptions) {
    checkPositiveInteger('permitLimit', options.permitLimit);
    checkPositiveInteger('windowMs', options.windowMs);
    this.permitLimit = options.permitLimit;
    this.windowMs = options.windowMs;
    this.clock = options.clock ?? systemClock.now;
    this.partitions = new PartitionStore(options.maxPartitions ?? 10_000, (s, now) => s.window < this.windowOf(now));
  }

  /** Partitions currently held in memory. */
  get partitionCount(): number {
    return this.partitions.size;
  }

  tryAcquire(key: string, permits = 1, now = this.clock()): RateLimitResult {
    checkPermits(permits, this.permitLimit);
    const window = this.windowOf(now);
    const state = this.partitions.get(key, now, () => ({ window, used: 0 }));
    if (state.window < window) {
      state.window = window;
      state.used = 0;
    }
    if (state.used + permits > this.permitLimit) {
      return { ok: false, retryAfterMs: (state.window + 1) * this.windowMs - now };
    }
    state.used += permits;
    return { ok: true };
  }

  private windowOf(now: number): number {
    return Math.floor(now / this.windowMs);
  }
}
