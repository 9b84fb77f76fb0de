import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ingestFenceKey } from '../../../src/adapters/redis/redis-ingest-lease.js';
import type { BackplaneEnvelope } from '../../../src/wire/backplane-codec.js';
import { eventually } from '../../support/app-harness.js';
import { deleteKeys, redisOrReport, REDIS_URL } from '../eventhubs/redis-for-tests.js';
import { runBackplaneContract } from '../../realtime/backplane.case.js';

if (await redisOrReport('RedisBackplane contract')) {
  runBackplaneContract('RedisBackplane', async (size) => {
    // A hub name per test: its channel is this test's alone.
    const hubName = `contract-${randomUUID()}`;
    const nodes = Array.from(
      { length: size },
      () => new RedisBackplane({ url: REDIS_URL, hubName, log: pino({ level: 'silent' }) }),
    );
    await Promise.all(nodes.map((n) => n.start()));
    return { nodes, dispose: async () => void (await Promise.all(nodes.map((n) => n.close()))) };
  });
}

if (await redisOrReport('RedisBackplane close')) {
  describe('RedisBackplane close', () => {
    it("sends the readings of close's own turn before it quits: the lease holder's last readings at shutdown reach the other nodes", async () => {
      const hubName = `close-${randomUUID()}`;
      const log = pino({ level: 'silent' });
      const admin = new Redis(REDIS_URL);
      await admin.set(ingestFenceKey(hubName), '1');
      const [a, b] = [0, 1].map(() => new RedisBackplane({ url: REDIS_URL, hubName, log })) as [
        RedisBackplane,
        RedisBackplane,
      ];
      await Promise.all([a.start(), b.start()]);
      const got: unknown[] = [];
      b.onMessage((e) => got.push(e.message.data));
      await b.watch('device:t1:d1');
      const reading = (seq: number): BackplaneEnvelope => ({
        kind: 'group',
        group: 'device:t1:d1',
        message: {
          source: { kind: 'group', group: 'device:t1:d1' },
          dataType: 'json',
          data: { seq },
          conflationKey: undefined,
          kind: 'reading',
        },
      });
      a.publish(reading(1), 1);
      a.publish({
        kind: 'all',
        message: { source: { kind: 'server' }, dataType: 'text', data: 'bye', conflationKey: undefined },
      });
      await a.close();
      await eventually(() => got.length === 2, 5000, 'both messages at the other node');
      // The fenced batch leaves in a microtask, the unfenced message at once: order aside, both arrive.
      expect(got).toEqual(expect.arrayContaining([{ seq: 1 }, 'bye']));
      await b.close();
      await deleteKeys(admin, `telemetry-hub:${hubName}:`);
      admin.disconnect();
    });
  });
}
