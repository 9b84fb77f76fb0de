import { FixedWindowLimiter } from '../rate-limit/fixed-window-limiter.js';
import { TokenBucketLimiter } from '../rate-limit/token-bucket-limiter.js';
import { byClientIp, byUser } from './partition-keys.js';
import type { RateLimitPolicy } from './rate-limiting.js';

/** Policy names endpoints put in metadata `rateLimit`. */
export const RateLimitPolicies = {
  /** negotiate / subscribe: per user, bursts of 20 then 10 per second. */
  functions: 'functions',
  /** dev sign-in: per client address, 10 per minute (slows password-style guessing). */
  signin: 'signin',
} as const;

/** The hub's default policies; a fresh set (fresh counters) per call. `clock` (epoch ms) is for tests. */
export function defaultRateLimitPolicies(options: { clock?: () => number } = {}): Record<string, RateLimitPolicy> {
  const { clock } = options;
  return {
    [RateLimitPolicies.functions]: {
      createLimiter: () => new TokenBucketLimiter({ tokenLimit: 20, tokensPerPeriod: 10, replenishmentPeriodMs: 1000, clock }),
      partitionKey: byUser,
    },
    [RateLimitPolicies.signin]: {
      createLimiter: () => new FixedWindowLimiter({ permitLimit: 10, windowMs: 60_000, clock }),
      partitionKey: byClientIp,
    },
  };
}
