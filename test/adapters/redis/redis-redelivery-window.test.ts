import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { FencedPublisher } from '../../../src/adapters/redis/fenced-publisher.js';
import { RedisRedeliveryWindow } from '../../../src/adapters/redis/redis-redelivery-window.js';
import { systemClock } from '../../../src/host/clock.js';
import { deleteKeys, redisOrReport, REDIS_URL, uniquePrefix } from '../eventhubs/redis-for-tests.js';

if (await redisOrReport('RedisRedeliveryWindow')) {
  describe('RedisRedeliveryWindow across ingest lease holdings (real Redis)', () => {
    const prefix = uniquePrefix();
    const fenceKey = `${prefix}fence`;
    const publishedKey = `${prefix}published-seqs`;
    const redis = new Redis(REDIS_URL);
    afterAll(async () => {
      await deleteKeys(redis, prefix);
      redis.disconnect();
    });
    const window = new RedisRedeliveryWindow({
      redis,
      keyPrefix: `${prefix}redelivery:`,
      fenceKeyOf: () => fenceKey,
      publishedKey,
      windowMs: 60_000,
      clock: systemClock,
      log: pino({ level: 'silent' }),
    });
    const publisher = new FencedPublisher(redis, {
      cluster: false,
      fenceKeyOf: () => fenceKey,
      publishedKey,
      outcome: () => undefined,
    });
    const publish = (fence: number, seq: number) =>
      publisher.publish(fence, `${prefix}channel`, 'reading', 'g', String(seq));

    it("the successor's own publishes do not make its predecessor's unpublished readings look sent", async () => {
      // Holding 5 takes readings 1–3 of the device in and publishes reading 1, then stalls.
      await redis.set(fenceKey, '5');
      for (const n of [1, 2, 3]) expect(await window.confirm(`id-${n}`, 5, n, 'g')).toBe(false);
      publish(5, 1);
      await publisher.flush();

      // Holding 6 is given 2 and 3 again, one after the other, publishing what it numbers.
      await redis.set(fenceKey, '6');
      expect(await window.confirm('id-2', 6, 11, 'g')).toBe(false);
      publish(6, 11);
      await publisher.flush();
      expect(await window.confirm('id-3', 6, 12, 'g')).toBe(false);
      publish(6, 12);
      await publisher.flush();
      // Reading 1 reached the cluster under holding 5; 2 and 3 now under holding 6.
      expect(await window.confirm('id-1', 6, 13, 'g')).toBe(true);
      expect(await window.confirm('id-2', 6, 14, 'g')).toBe(true);
      expect(await redis.hgetall(publishedKey)).toEqual({ g: '6:12', 'g<': '5:1' });
    });
  });
}
