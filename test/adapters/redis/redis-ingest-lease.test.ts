import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../../src/adapters/redis/bounded-redis-options.js';
import { RedisIngestLease } from '../../../src/adapters/redis/redis-ingest-lease.js';
import { systemClock, type Clock } from '../../../src/host/clock.js';
import { eventually } from '../../support/app-harness.js';
import { privateRedis, redisUrl, requireCommand, type PrivateServer } from '../../support/private-server.js';
import { redisOrReport, REDIS_URL, uniquePrefix } from '../eventhubs/redis-for-tests.js';

const TTL_MS = 900;

if (await redisOrReport('RedisIngestLease')) {
  describe('RedisIngestLease (real Redis)', () => {
    const clients: Redis[] = [];
    const leases: RedisIngestLease[] = [];
    let redis: PrivateServer | undefined;

    async function lease(key: string, url = REDIS_URL, clock: Clock = systemClock): Promise<RedisIngestLease> {
      const client = new Redis(url, boundedRedisOptions());
      client.on('error', () => undefined);
      clients.push(client);
      await client.connect();
      const made = new RedisIngestLease({
        redis: client,
        key,
        fenceKey: `${key}:fence`,
        ttlMs: TTL_MS,
        clock,
        log: pino({ level: 'silent' }),
        instanceId: `i${leases.length}`,
      });
      leases.push(made);
      await made.start();
      return made;
    }

    afterEach(async () => {
      for (const l of leases.splice(0)) await l.stop();
      for (const c of clients.splice(0)) c.disconnect();
    });
    afterAll(async () => redis?.stop());

    it('three instances: exactly one holds the lease, and keeps it past its TTL by renewing', async () => {
      const key = `${uniquePrefix()}lease`;
      const all = [await lease(key), await lease(key), await lease(key)];
      expect(all.filter((l) => l.held)).toHaveLength(1);
      const holder = all.find((l) => l.held)!;
      const changes: boolean[] = [];
      holder.onChange((held) => {
        changes.push(held);
      });
      // Four renewals seen in Redis (the key's time to live going up again) reach past the first TTL.
      const watcher = clients[0]!;
      let renewals = 0;
      let lastTtl = Infinity;
      const deadline = Date.now() + TTL_MS * 5;
      while (renewals < 4 && Date.now() < deadline) {
        const ttl = await watcher.pttl(key);
        if (ttl > lastTtl) renewals++;
        lastTtl = ttl;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(renewals).toBe(4);
      expect(holder.held).toBe(true);
      expect(changes).toEqual([]);
      expect(all.filter((l) => l.held)).toHaveLength(1);
    });

    it('a holder whose clock ran out before Redis dropped its lease holds it again under a new token: what the lapsed holding dropped is not taken for its own', async () => {
      const key = `${uniquePrefix()}lease`;
      // A process that slept past its holding (monotonic time jumped) but not past the key's TTL.
      let slept = 0;
      const clock: Clock = { ...systemClock, monotonicNow: () => systemClock.monotonicNow() + slept };
      const holder = await lease(key, REDIS_URL, clock);
      const first = holder.fence!;
      expect(holder.held).toBe(true);
      slept = TTL_MS;
      expect(holder.held).toBe(false);
      expect(await clients[0]!.get(key)).not.toBeNull(); // still ours in Redis
      await eventually(() => holder.held, TTL_MS * 2, 'the next claim');
      expect(holder.fence).toBe(first + 1);
    });

    it('a stopping holder frees the lease and a standby takes it within a renew interval', async () => {
      const key = `${uniquePrefix()}lease`;
      const first = await lease(key);
      const second = await lease(key);
      expect([first.held, second.held]).toEqual([true, false]);
      const started = Date.now();
      await first.stop();
      await eventually(() => second.held, TTL_MS, 'the standby to take over');
      expect(Date.now() - started).toBeLessThan(TTL_MS);
    });

    it('a holder that cannot reach Redis stops holding before its lease expires there, and holds again once Redis is back', async ({
      skip,
    }) => {
      if (!requireCommand('redis-server', 'a private Redis to lose')) return skip();
      redis = await privateRedis();
      await redis.start();
      const key = 'lease';
      const holder = await lease(key, redisUrl(redis));
      expect(holder.held).toBe(true);
      const lostAt: number[] = [];
      holder.onChange((held) => {
        if (!held) lostAt.push(Date.now());
      });
      const stoppedAt = Date.now();
      await redis.stop();
      await eventually(() => lostAt.length === 1, TTL_MS * 2, 'the holder to give up');
      expect(lostAt[0]! - stoppedAt).toBeLessThan(TTL_MS);
      await redis.start();
      await eventually(() => holder.held, 10_000, 'the lease again once Redis is back');
    });

    it("a Redis restarted without its data goes on with tokens above every one it handed out before: no new holding gets an old holding's token", async ({
      skip,
    }) => {
      if (!requireCommand('redis-server', 'a private Redis to restart empty')) return skip();
      const server = await privateRedis();
      await server.start();
      try {
        const first = await lease('lease', redisUrl(server));
        const before = [first.fence!];
        await first.stop();
        const second = await lease('lease', redisUrl(server));
        await eventually(() => second.held, TTL_MS * 2, 'a second holding');
        before.push(second.fence!);
        await second.stop();
        // No persistence: the restarted Redis has lost the lease and the token counter.
        await server.stop();
        await server.start();
        const third = await lease('lease', redisUrl(server));
        await eventually(() => third.held, 10_000, 'a holding after the restart');
        expect(third.fence!).toBeGreaterThan(Math.max(...before));
      } finally {
        for (const l of leases.splice(0)) await l.stop();
        await server.stop();
      }
    });
  });
}
