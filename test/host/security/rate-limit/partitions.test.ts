// One suite for every limiter: partitions are independent, memory stays bounded, idle ones go away.
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimiter } from '../../../../src/host/security/rate-limit/concurrency-limiter.js';
import { FixedWindowLimiter } from '../../../../src/host/security/rate-limit/fixed-window-limiter.js';
import type { RateLimiter } from '../../../../src/host/security/rate-limit/rate-limiter.js';
import { SlidingWindowLimiter } from '../../../../src/host/security/rate-limit/sliding-window-limiter.js';
import { TokenBucketLimiter } from '../../../../src/host/security/rate-limit/token-bucket-limiter.js';

type Partitioned = RateLimiter & { readonly partitionCount: number };

const MINUTE = 60_000;
const limiters: Array<[string, (maxPartitions?: number) => Partitioned]> = [
  ['fixed window', (maxPartitions) => new FixedWindowLimiter({ permitLimit: 2, windowMs: MINUTE, maxPartitions })],
  [
    'sliding window',
    (maxPartitions) => new SlidingWindowLimiter({ permitLimit: 2, windowMs: MINUTE, segments: 6, maxPartitions }),
  ],
  [
    'token bucket',
    (maxPartitions) =>
      new TokenBucketLimiter({ tokenLimit: 2, tokensPerPeriod: 2, replenishmentPeriodMs: MINUTE, maxPartitions }),
  ],
  ['concurrency', (maxPartitions) => new ConcurrencyLimiter({ permitLimit: 2, maxPartitions })],
];

/** Uses up the partition at `now`; returns the leases so a test can finish the work later. */
function exhaust(limiter: RateLimiter, key: string, now: number): Array<() => void> {
  const releases: Array<() => void> = [];
  for (let i = 0; i < 2; i++) {
    const result = limiter.tryAcquire(key, 1, now);
    if (!result.ok) throw new Error(`${key} refused while exhausting`);
    if (result.release) releases.push(result.release);
  }
  return releases;
}

describe.each(limiters)('%s partitions', (_name, create) => {
  it('limits each key on its own', () => {
    const limiter = create();
    exhaust(limiter, 'alice', 0);
    expect(limiter.tryAcquire('alice', 1, 0).ok).toBe(false);
    expect(limiter.tryAcquire('bob', 1, 0).ok).toBe(true);
  });

  it('keeps memory bounded under a flood of distinct keys', () => {
    const limiter = create(100);
    for (let i = 0; i < 5_000; i++) exhaust(limiter, `attacker-${i}`, 0);
    expect(limiter.partitionCount).toBe(100);
  });

  it('drops idle partitions as traffic continues, without a timer', () => {
    const limiter = create();
    const leases = Array.from({ length: 50 }, (_, i) => exhaust(limiter, `user-${i}`, 0)).flat();
    expect(limiter.partitionCount).toBe(50);
    for (const release of leases) release();
    for (let i = 0; i < 50; i++) limiter.tryAcquire('user-0', 1, 2 * MINUTE);
    expect(limiter.partitionCount).toBe(1);
  });

  it('never drops a busy partition while below the bound', () => {
    const limiter = create();
    exhaust(limiter, 'busy', 0);
    for (let i = 0; i < 500; i++) limiter.tryAcquire(`other-${i}`, 1, 1);
    expect(limiter.tryAcquire('busy', 1, 2).ok).toBe(false);
  });

  it('refuses a permit count no partition could grant', () => {
    expect(() => create().tryAcquire('alice', 3, 0)).toThrow(RangeError);
    expect(() => create().tryAcquire('alice', 0, 0)).toThrow(RangeError);
  });
});
