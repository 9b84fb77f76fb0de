import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../../src/adapters/redis/bounded-redis-options.js';
import { RedisIngestLease } from '../../../src/adapters/redis/redis-ingest-lease.js';
import { systemClock } from '../../../src/host/clock.js';
import { eventually } from '../../support/app-harness.js';
import { privateRedis, redisUrl, requireCommand, type PrivateServer } from '../../support/private-server.js';

const TTL_MS = 3000;

describe('ingest lease across a Redis that restarts without its data', () => {
  const available = requireCommand('redis-server', 'needed to restart a private Redis');
  let server: PrivateServer | undefined;
  const open: { stop(): Promise<void> }[] = [];

  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.stop();
    await server?.stop();
    server = undefined;
  });

  async function lease(url: string, name: string) {
    const redis = new Redis(url, { ...boundedRedisOptions(), lazyConnect: true });
    redis.on('error', () => undefined);
    await redis.connect();
    const changes: boolean[] = [];
    const l = new RedisIngestLease({
      redis,
      key: 'telemetry-hub:loss:ingest-lease',
      fenceKey: 'telemetry-hub:loss:ingest-lease:fence',
      ttlMs: TTL_MS,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      instanceId: name,
    });
    l.onChange((held) => {
      changes.push(held);
    });
    open.push({
      stop: async () => {
        await l.stop();
        redis.disconnect();
      },
    });
    await l.start();
    return { lease: l, changes };
  }

  it('the holding ends when the connection drops (long before its TTL), and the token after the restart is above the one before', async ({
    skip,
  }) => {
    if (!available) return skip();
    server = await privateRedis();
    await server.start();
    const a = await lease(redisUrl(server), 'a');
    expect(a.lease.held).toBe(true);
    const before = a.lease.fence!;

    const stoppedAt = Date.now();
    await server.stop();
    // Readings taken now would be numbered under a token the restarted Redis no longer knows.
    await eventually(() => !a.lease.held, TTL_MS / 2, 'the holding ended with the connection');
    expect(Date.now() - stoppedAt).toBeLessThan(TTL_MS * 0.8);

    await server.start();
    await eventually(() => a.lease.held, 10_000, 'the lease claimed again on the empty Redis');
    // Counted from 1 again, a stale holder's token would equal a new holder's.
    expect(a.lease.fence!).toBeGreaterThan(before);
    expect(a.changes).toEqual([true, false, true]);
  }, 30_000);
});
