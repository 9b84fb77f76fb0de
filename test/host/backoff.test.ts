import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/host/backoff.js';

describe('Backoff', () => {
  it('grows exponentially with jitter, is capped, and resets after a connect', () => {
    const low = new Backoff(500, 30_000, () => 0);
    const high = new Backoff(500, 30_000, () => 1);
    expect(Array.from({ length: 8 }, () => low.next())).toEqual([250, 500, 1000, 2000, 4000, 8000, 15000, 15000]);
    expect(Array.from({ length: 8 }, () => high.next())).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    high.reset();
    expect(high.next()).toBe(500);
  });

  it('spreads reconnects of many hubs instead of a thundering herd', () => {
    const delays = Array.from({ length: 100 }, () => new Backoff(1000).next());
    expect(new Set(delays).size).toBeGreaterThan(50);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(500);
    expect(Math.max(...delays)).toBeLessThanOrEqual(1000);
  });

  it('gives delay n on its own to a client that counts its attempts itself, the same as the nth next()', () => {
    const counted = new Backoff(200, 5000, () => 1);
    const own = new Backoff(200, 5000, () => 1);
    expect(Array.from({ length: 8 }, (_, n) => counted.delay(n))).toEqual(Array.from({ length: 8 }, () => own.next()));
    expect(counted.delay(1000)).toBe(5000);
  });
});
