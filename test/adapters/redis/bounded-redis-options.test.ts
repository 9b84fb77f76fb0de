import { describe, expect, it } from 'vitest';
import {
  boundedRedisOptions,
  REDIS_MAX_RECONNECT_DELAY_MS,
} from '../../../src/adapters/redis/bounded-redis-options.js';

describe('boundedRedisOptions', () => {
  it('reconnects back off with jitter from 200 ms to at most 5 s, and never give up', () => {
    const retry = boundedRedisOptions().retryStrategy!;
    const first = Array.from({ length: 50 }, () => retry(1) as number);
    expect(Math.min(...first)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...first)).toBeLessThanOrEqual(200);
    // Many hubs reconnecting to a restarted Redis do not arrive together.
    expect(new Set(first).size).toBeGreaterThan(10);
    const late = Array.from({ length: 50 }, () => retry(1000) as number);
    expect(late.every((d) => d >= REDIS_MAX_RECONNECT_DELAY_MS / 2 && d <= REDIS_MAX_RECONNECT_DELAY_MS)).toBe(true);
  });
});
