import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { SharedLastValues } from '../../../src/adapters/redis/shared-last-values.js';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import type { Reading } from '../../../src/wire/reading.js';
import { eventually } from '../../support/app-harness.js';
import { redisOrReport, REDIS_URL } from '../eventhubs/redis-for-tests.js';

if (await redisOrReport('SharedLastValues')) {
  describe('SharedLastValues (real Redis)', () => {
    const redis = new Redis(REDIS_URL);
    const keyPrefix = `test:last-values:${randomUUID()}:`;
    afterAll(async () => {
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    });

    const reading = (seq: number, fence?: number): Reading => ({
      tenantId: 't1',
      deviceId: 'd1',
      seq,
      ts: seq,
      receivedAt: seq,
      data: { n: seq },
      ...(fence !== undefined ? { fence } : {}),
    });

    it("keeps a device's newest value when one turn writes it under two fences (leased, unfenced, leased; and the other way round)", async () => {
      // Two partitions' tokens and the unfenced case: each write batch goes under its own fence.
      await redis.set(`${keyPrefix}fence:1`, '31');
      await redis.set(`${keyPrefix}fence:2`, '32');
      const lastValues = new SharedLastValues(redis, {
        keyPrefix,
        fenceKeyOf: (fence) => `${keyPrefix}fence:${fence % 2 === 1 ? 1 : 2}`,
        registry: new DeviceRegistry({}),
        log: pino({ level: 'silent' }),
      });
      const stored = async () => JSON.parse((await redis.hget(`${keyPrefix}last:t1`, 'd1')) ?? '{}') as Reading;
      // Leased, then unfenced (a management-API send), then leased again, all in one turn: the
      // leased batch was opened first, so written in batch order the unfenced 6 would land last.
      lastValues.write(reading(5, 31));
      lastValues.write(reading(6));
      lastValues.write(reading(7, 31));
      await eventually(async () => (await stored()).seq === 7, 5000, 'the newest value stored');
      // A turn's batches leave in one synchronous flush on this connection: once 7 is read, any
      // batch sent with it was answered before this read.
      expect((await stored()).seq).toBe(7);
      // The other way round, over two partitions' fences.
      lastValues.write(reading(8));
      lastValues.write(reading(9, 32));
      lastValues.write(reading(10));
      await eventually(async () => (await stored()).seq === 10, 5000, 'the newest value stored');
      // Nothing older lands after it.
      expect((await stored()).seq).toBe(10);
    });
  });
}
