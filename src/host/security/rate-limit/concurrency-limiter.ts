import { PartitionStore } from './partition-store.js';
import {
  checkPermits,
  checkPositiveInteger,
  releaseOnce,
  type PartitionOptions,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.js';
import { systemClock } from '../../clock.js';

export interface ConcurrencyLimiterOptions extends PartitionOptions {
  /** Permits in use at once per partition. */
  permitLimit: number;
}

interface InFlightState {
  inFlight: number;
}

/**
 * At most `permitLimit` permits held at once; each lease's `release()` gives its permits back. A
 * rejection has no `retryAfterMs`: when a slot frees depends on other requests, not on the clock.
 */
export class ConcurrencyLimiter implements RateLimiter {
  private readonly permitLimit: number;
  private readonly clock: () => number;
  private readonly partitions: PartitionStore<InFlightState>;

  constructor(options: ConcurrencyLimiterOptions) {
    checkPositiveInteger('permitLimit', options.permitLimit);
    this.permitLimit = options.permitLimit;
    this.clock = options.clock ?? systemClock.now;
    this.partitions = new PartitionStore(options.maxPartitions ?? 10_000, (s) => s.inFlight === 0);
  }

  /** Partitions currently held in memory. */
  get partitionCount(): number {
    return this.partitions.size;
  }

  tryAcquire(key: string, permits = 1, now = this.clock()): RateLimitResult {
    checkPermits(permits, this.permitLimit);
    const state = this.partitions.get(key, now, () => ({ inFlight: 0 }));
    if (state.inFlight + permits > this.permitLimit) return { ok: false };
    state.inFlight += permits;
    return {
      ok: true,
      // Bound to this state object: if the partition was dropped meanwhile, releasing cannot
      // corrupt the count of a partition created later under the same key.
      release: releaseOnce(() => {
        state.inFlight -= permits;
      }),
    };
  }
}
