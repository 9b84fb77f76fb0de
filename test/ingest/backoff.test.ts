import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/ingest/mqtt/backoff.js';

describe('MQTT reconnect backoff', () => {
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
});
