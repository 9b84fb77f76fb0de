import { ConcurrencyLimiter } from '../rate-limit/concurrency-limiter.js';
import { FixedWindowLimiter } from '../rate-limit/fixed-window-limiter.js';
import { SlidingWindowLimiter } from '../rate-limit/sliding-window-limiter.js';
import { TokenBucketLimiter } from '../rate-limit/token-bucket-limiter.js';
import { byAccessKey, byClientIp, byUser } from './partition-keys.js';
import type { RateLimitPolicy } from './rate-limiting.js';

/** Policy names endpoints put in metadata `rateLimit`. */
export const RateLimitPolicies = {
  /** negotiate / subscribe: per user, bursts of 20 then 10 per second. */
  functions: 'functions',
  /** dev sign-in: per client address, 10 per minute (slows password-style guessing). */
  signin: 'signin',
  /** session exchange (`/auth/session`, `/auth/token`): per client address, 30 in any minute. */
  session: 'session',
  /** the management API: per access key, `MANAGEMENT_CONCURRENCY` requests in flight at once. */
  management: 'management',
} as const;

/** Management API requests one access key may have in flight (a function app sends 16 at once per instance). */
export const MANAGEMENT_CONCURRENCY = 256;

export interface DefaultRateLimitOptions {
  /** Clock, epoch ms; for tests. */
  clock?: () => number;
}

/** The hub's default policies; a fresh set (fresh counters) per call. */
export function defaultRateLimitPolicies(options: DefaultRateLimitOptions = {}): Record<string, RateLimitPolicy> {
  const { clock } = options;
  return {
    [RateLimitPolicies.functions]: {
      createLimiter: () =>
        new TokenBucketLimiter({ tokenLimit: 20, tokensPerPeriod: 10, replenishmentPeriodMs: 1000, clock }),
      partitionKey: byUser,
    },
    [RateLimitPolicies.signin]: {
      createLimiter: () => new FixedWindowLimiter({ permitLimit: 10, windowMs: 60_000, clock }),
      partitionKey: byClientIp,
    },
    [RateLimitPolicies.session]: {
      // Sliding: a client refused at the end of one minute cannot send twice the limit across the boundary.
      createLimiter: () => new SlidingWindowLimiter({ permitLimit: 30, windowMs: 60_000, segments: 6, clock }),
      partitionKey: byClientIp,
    },
    [RateLimitPolicies.management]: {
      createLimiter: () => new ConcurrencyLimiter({ permitLimit: MANAGEMENT_CONCURRENCY, clock }),
      partitionKey: byAccessKey,
    },
  };
}
