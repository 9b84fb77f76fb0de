import { describe, expect, it } from 'vitest';
import { chainLimiters, keyedBy } from '../../../src/security/rate-limit/chain-limiters.js';
import { ConcurrencyLimiter } from '../../../src/security/rate-limit/concurrency-limiter.js';
import { FixedWindowLimiter } from '../../../src/security/rate-limit/fixed-window-limiter.js';
import type { RateLimitLease } from '../../../src/security/rate-limit/rate-limiter.js';
import { TokenBucketLimiter } from '../../../src/security/rate-limit/token-bucket-limiter.js';

describe('chainLimiters (global before endpoint)', () => {
  it('refuses with the Retry-After of whichever limiter refused', () => {
    const global = keyedBy(new FixedWindowLimiter({ permitLimit: 3, windowMs: 60_000 }), () => 'global');
    const endpoint = new TokenBucketLimiter({ tokenLimit: 1, tokensPerPeriod: 1, replenishmentPeriodMs: 10_000 });
    const chain = chainLimiters(global, endpoint);
    expect(chain.tryAcquire('alice', 1, 1_000).ok).toBe(true);
    expect(chain.tryAcquire('alice', 1, 1_000)).toEqual({ ok: false, retryAfterMs: 9_000 }); // endpoint
    expect(chain.tryAcquire('bob', 1, 1_000).ok).toBe(true); // third global permit
    expect(chain.tryAcquire('carol', 1, 1_000)).toEqual({ ok: false, retryAfterMs: 59_000 }); // global
  });

  it('does not consult the endpoint limiter once the global one refuses', () => {
    const global = keyedBy(new FixedWindowLimiter({ permitLimit: 1, windowMs: 60_000 }), () => 'global');
    const endpoint = new FixedWindowLimiter({ permitLimit: 1, windowMs: 60_000 });
    const chain = chainLimiters(global, endpoint);
    chain.tryAcquire('alice', 1, 0);
    expect(chain.tryAcquire('bob', 1, 0).ok).toBe(false);
    expect(endpoint.tryAcquire('bob', 1, 0).ok).toBe(true);
  });

  it('gives back concurrency slots taken before a later refusal, and all of them on release', () => {
    const inFlight = keyedBy(new ConcurrencyLimiter({ permitLimit: 1 }), () => 'global');
    const endpoint = new FixedWindowLimiter({ permitLimit: 1, windowMs: 60_000 });
    const chain = chainLimiters(inFlight, endpoint);
    const lease = chain.tryAcquire('alice', 1, 0) as RateLimitLease;
    expect(chain.tryAcquire('bob', 1, 0).ok).toBe(false); // server busy
    lease.release!();
    expect(chain.tryAcquire('alice', 1, 0).ok).toBe(false); // endpoint window used up…
    expect(chain.tryAcquire('bob', 1, 0).ok).toBe(true); // …and it did not keep the global slot
  });
});
