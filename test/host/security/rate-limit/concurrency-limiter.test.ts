import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from '../../../../src/host/security/rate-limit/concurrency-limiter.js';
import type { RateLimitLease } from '../../../../src/host/security/rate-limit/rate-limiter.js';

describe('ConcurrencyLimiter', () => {
  it('holds at most permitLimit in flight and frees a slot on release', () => {
    const limiter = new ConcurrencyLimiter({ permitLimit: 2 });
    const first = limiter.tryAcquire('alice') as RateLimitLease;
    expect(limiter.tryAcquire('alice').ok).toBe(true);
    // No Retry-After: when a slot frees depends on other requests, not on time.
    expect(limiter.tryAcquire('alice')).toEqual({ ok: false });
    first.release!();
    expect(limiter.tryAcquire('alice').ok).toBe(true);
  });

  it('ignores a second release of the same lease', () => {
    const limiter = new ConcurrencyLimiter({ permitLimit: 1 });
    const lease = limiter.tryAcquire('alice') as RateLimitLease;
    lease.release!();
    lease.release!();
    expect(limiter.tryAcquire('alice').ok).toBe(true);
    expect(limiter.tryAcquire('alice').ok).toBe(false);
  });

  it('does not disturb a new partition when a lease of a dropped one is released', () => {
    const limiter = new ConcurrencyLimiter({ permitLimit: 1, maxPartitions: 1 });
    const old = limiter.tryAcquire('alice') as RateLimitLease;
    limiter.tryAcquire('bob'); // drops alice (bound of 1)
    expect(limiter.tryAcquire('alice').ok).toBe(true); // drops bob, alice is fresh and busy
    old.release!();
    expect(limiter.tryAcquire('alice').ok).toBe(false);
  });
});
