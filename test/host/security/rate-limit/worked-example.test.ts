// Spec "Limits", worked example: each limiter allows 100 requests per minute; bursts of 100 requests
// arrive at 55 s and at 61 s (clock in ms from 0).
import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../../../src/host/security/rate-limit/fixed-window-limiter.js';
import {
  retryAfterSeconds,
  type RateLimiter,
  type RateLimitResult,
} from '../../../../src/host/security/rate-limit/rate-limiter.js';
import { SlidingWindowLimiter } from '../../../../src/host/security/rate-limit/sliding-window-limiter.js';
import { TokenBucketLimiter } from '../../../../src/host/security/rate-limit/token-bucket-limiter.js';

const KEY = 'client-1';

function burst(limiter: RateLimiter, now: number, size = 100) {
  const results: RateLimitResult[] = [];
  for (let i = 0; i < size; i++) results.push(limiter.tryAcquire(KEY, 1, now));
  const rejected = results.filter((r) => !r.ok);
  return {
    allowed: results.length - rejected.length,
    retryAfter: new Set(rejected.map((r) => retryAfterSeconds(r.retryAfterMs!))),
  };
}

/** The Retry-After (seconds) a refused request gets, or 'allowed'. */
function probe(limiter: RateLimiter, now: number, permits = 1): number | 'allowed' {
  const result = limiter.tryAcquire(KEY, permits, now);
  return result.ok ? 'allowed' : retryAfterSeconds(result.retryAfterMs!);
}

describe('fixed window: 100 per 60 s, resets at 60 s', () => {
  const create = () => new FixedWindowLimiter({ permitLimit: 100, windowMs: 60_000 });

  it('allows both bursts (200 in six seconds)', () => {
    const limiter = create();
    expect(burst(limiter, 55_000).allowed).toBe(100);
    expect(burst(limiter, 61_000).allowed).toBe(100);
    // The 101st request of the second window waits for the reset at 120 s.
    expect(probe(limiter, 61_000)).toBe(59);
  });

  it('tells a request refused at 55 s to come back when the window resets at 60 s', () => {
    const limiter = create();
    burst(limiter, 55_000);
    expect(probe(limiter, 55_000)).toBe(5);
    expect(probe(limiter, 59_999)).toBe(1);
    expect(probe(limiter, 60_000)).toBe('allowed');
  });
});

describe('sliding window: 100 per 60 s in 6 segments of 10 s', () => {
  const create = () => new SlidingWindowLimiter({ permitLimit: 100, windowMs: 60_000, segments: 6 });

  it('rejects the whole second burst, with Retry-After pointing at 110 s', () => {
    const limiter = create();
    expect(burst(limiter, 55_000).allowed).toBe(100);
    const second = burst(limiter, 61_000);
    expect(second.allowed).toBe(0);
    expect(second.retryAfter).toEqual(new Set([49]));
  });

  it('gives the permits back when the 50–60 s segment leaves the window at 110 s', () => {
    const limiter = create();
    burst(limiter, 55_000);
    burst(limiter, 61_000);
    expect(probe(limiter, 109_999)).toBe(1);
    expect(probe(limiter, 110_000, 100)).toBe('allowed');
  });

  it('returns each segment’s permits separately, rounding Retry-After up', () => {
    const limiter = create();
    for (let i = 0; i < 60; i++) limiter.tryAcquire(KEY, 1, 55_000);
    for (let i = 0; i < 40; i++) limiter.tryAcquire(KEY, 1, 65_000);
    expect(probe(limiter, 66_200)).toBe(44); // 60 permits back at 110 s: 43.8 s → 44
    expect(probe(limiter, 66_200, 61)).toBe(54); // 61 permits need the 60–70 s segment gone too: 120 s
    expect(probe(limiter, 110_000, 60)).toBe('allowed');
    expect(probe(limiter, 110_000)).toBe(10);
  });
});

describe('token bucket: 100 tokens, +10 every 6 s', () => {
  const create = () => new TokenBucketLimiter({ tokenLimit: 100, tokensPerPeriod: 10, replenishmentPeriodMs: 6_000 });

  it('gives the second burst exactly the 10 tokens added at 60 s', () => {
    const limiter = create();
    expect(burst(limiter, 55_000).allowed).toBe(100);
    const second = burst(limiter, 61_000);
    expect(second.allowed).toBe(10);
    // The next 10 tokens arrive at 66 s.
    expect(second.retryAfter).toEqual(new Set([5]));
  });

  it('is full (100) again by 120 s, and not before', () => {
    const limiter = create();
    burst(limiter, 55_000);
    burst(limiter, 61_000);
    expect(probe(limiter, 61_000, 100)).toBe(59);
    expect(probe(limiter, 119_999, 100)).toBe(1);
    expect(probe(limiter, 119_999, 90)).toBe('allowed');
  });

  it('holds exactly 100 tokens at 120 s', () => {
    const limiter = create();
    burst(limiter, 55_000);
    burst(limiter, 61_000);
    expect(probe(limiter, 120_000, 100)).toBe('allowed');
    expect(probe(limiter, 120_000)).toBe(6);
  });
});
