import { PartitionStore } from './partition-store.js';
import {
  checkPermits,
  checkPositiveInteger,
  type PartitionOptions,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.js';
import { systemClock } from '../../clock.js';

export interface TokenBucketLimiterOptions extends PartitionOptions {
  /** Bucket size; a new partition starts full. */
  tokenLimit: number;
  /** Tokens added each period, up to `tokenLimit`. */
  tokensPerPeriod: number;
  /** Period length; refills happen at multiples of it on the clock. */
  replenishmentPeriodMs: number;
}

interface BucketState {
  tokens: number;
  /** Absolute number of the period of the last refill. */
  period: number;
}

/**
 * Allows bursts up to `tokenLimit`, then `tokensPerPeriod` per period (spec "Limits": after 100 at 55 s,
 * a burst at 61 s gets the 10 tokens added at 60 s; the bucket is full again at 120 s).
 */
export class TokenBucketLimiter implements RateLimiter {
  private readonly tokenLimit: number;
  private readonly tokensPerPeriod: number;
  private readonly periodMs: number;
  private readonly clock: () => number;
  private readonly partitions: PartitionStore<BucketState>;

  constructor(options: TokenBucketLimiterOptions) {
    checkPositiveInteger('tokenLimit', options.tokenLimit);
    checkPositiveInteger('tokensPerPeriod', options.tokensPerPeriod);
    checkPositiveInteger('replenishmentPeriodMs', options.replenishmentPeriodMs);
    this.tokenLimit = options.tokenLimit;
    this.tokensPerPeriod = options.tokensPerPeriod;
    this.periodMs = options.replenishmentPeriodMs;
    this.clock = options.clock ?? systemClock.now;
    this.partitions = new PartitionStore(
      options.maxPartitions ?? 10_000,
      (s, now) => this.tokensAt(s, this.periodOf(now)) === this.tokenLimit,
    );
  }

  /** Partitions currently held in memory. */
  get partitionCount(): number {
    return this.partitions.size;
  }

  tryAcquire(key: string, permits = 1, now = this.clock()): RateLimitResult {
    checkPermits(permits, this.tokenLimit);
    const period = this.periodOf(now);
    const state = this.partitions.get(key, now, () => ({ tokens: this.tokenLimit, period }));
    if (period > state.period) {
      state.tokens = this.tokensAt(state, period);
      state.period = period;
    }
    if (state.tokens >= permits) {
      state.tokens -= permits;
      return { ok: true };
    }
    const periodsNeeded = Math.ceil((permits - state.tokens) / this.tokensPerPeriod);
    return { ok: false, retryAfterMs: (state.period + periodsNeeded) * this.periodMs - now };
  }

  private tokensAt(state: BucketState, period: number): number {
    const added = Math.max(0, period - state.period) * this.tokensPerPeriod;
    return Math.min(this.tokenLimit, state.tokens + added);
  }

  private periodOf(now: number): number {
    return Math.floor(now / this.periodMs);
  }
}
