import { releaseOnce, type RateLimiter, type RateLimitResult } from './rate-limiter.js';

/**
 * One limiter made of several, tried in order (e.g. a global limiter, then the endpoint's). The first
 * rejection wins and its `retryAfterMs` is returned; leases already granted by earlier limiters are
 * released. As in ASP.NET Core, permits a time-based limiter granted before a later rejection stay
 * spent: the request did reach the server.
 */
export function chainLimiters(...limiters: RateLimiter[]): RateLimiter {
  return {
    tryAcquire(key, permits = 1, now) {
      const releases: Array<() => void> = [];
      for (const limiter of limiters) {
        const result: RateLimitResult = limiter.tryAcquire(key, permits, now);
        if (!result.ok) {
          releaseAll(releases);
          return result;
        }
        if (result.release) releases.push(result.release);
      }
      if (releases.length === 0) return { ok: true };
      return { ok: true, release: releaseOnce(() => releaseAll(releases)) };
    },
  };
}

/** The limiter with its partition key derived from the caller's, e.g. `() => 'global'` for one shared partition. */
export function keyedBy(limiter: RateLimiter, partitionKey: (key: string) => string): RateLimiter {
  return { tryAcquire: (key, permits, now) => limiter.tryAcquire(partitionKey(key), permits, now) };
}

function releaseAll(releases: Array<() => void>): void {
  for (let i = releases.length - 1; i >= 0; i--) releases[i]!();
}
