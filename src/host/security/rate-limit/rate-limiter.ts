/** A granted request. `release` exists only where permits come back on completion (concurrency). */
export interface RateLimitLease {
  ok: true;
  /** Returns the permits; idempotent. Call when the work finishes, successful or not. */
  release?: () => void;
}

/**
 * A refused request. `retryAfterMs` is the earliest time the same request could succeed; absent
 * when that depends on other requests finishing rather than on time (concurrency).
 */
export interface RateLimitRejection {
  ok: false;
  retryAfterMs?: number;
}

export type RateLimitResult = RateLimitLease | RateLimitRejection;

/**
 * Limits requests per partition key (user, client address, or a constant for a global limit).
 * `permits` defaults to 1; `now` (epoch ms) defaults to the limiter's clock.
 */
export interface RateLimiter {
  tryAcquire(key: string, permits?: number, now?: number): RateLimitResult;
}

/** Options every partitioned limiter takes. */
export interface PartitionOptions {
  /** Most partitions kept in memory; beyond it the least recently used is dropped. Default 10 000. */
  maxPartitions?: number;
  /** Clock, epoch ms. Default the system clock. */
  clock?: () => number;
}

/** The `Retry-After` header value: whole seconds, rounded up so a client retrying on time is not refused. */
export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.ceil(retryAfterMs / 1000);
}

/** Throws on a permit count no partition could ever grant: asking for it is a programming error. */
export function checkPermits(permits: number, limit: number): void {
  if (!Number.isInteger(permits) || permits < 1 || permits > limit) {
    throw new RangeError(`permits must be an integer from 1 to ${limit}`);
  }
}

/** Throws unless `value` is a positive integer; `name` is the option in the message. */
export function checkPositiveInteger(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer`);
}

/** A release that runs `release` once however often it is called: a lease is returned once. */
export function releaseOnce(release: () => void): () => void {
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
  };
}
