import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisSeqAllocator } from '../../src/cluster/redis-seq-allocator.js';
import { deleteKeys, redisOrReport, REDIS_URL, uniquePrefix } from '../eventhubs/redis-for-tests.js';

if (await redisOrReport('RedisSeqAllocator')) {
  describe('RedisSeqAllocator (real Redis)', () => {
    const prefix = `${uniquePrefix()}seq:`;
    // Two instances: each with its own connection, as two processes have.
    const clients = [new Redis(REDIS_URL, { enableAutoPipelining: true }), new Redis(REDIS_URL, { enableAutoPipelining: true })];
    const [a, b] = clients.map((c) => new RedisSeqAllocator(c, { keyPrefix: prefix })) as [RedisSeqAllocator, RedisSeqAllocator];

    beforeAll(async () => void (await Promise.all(clients.map((c) => c.ping()))));
    afterAll(async () => {
      await deleteKeys(clients[0]!, prefix);
      await Promise.all(clients.map((c) => c.quit()));
    });

    it('two instances asking for one device continue one sequence: no number twice, none skipped', async () => {
      const asked = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? a : b).next('t1', 'dev', 0));
      const got = await Promise.all(asked);
      expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    });

    it("one instance's answers come in the order it asked (auto-pipelined on one connection)", async () => {
      const got = await Promise.all(Array.from({ length: 200 }, () => a.next('t1', 'ordered', 0)));
      expect(got).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    });

    it("moves up to the caller's floor (a counter that lost its data) and continues from there", async () => {
      expect(await a.next('t1', 'floor', 0)).toBe(1);
      expect(await b.next('t1', 'floor', 41)).toBe(42);
      expect(await a.next('t1', 'floor', 0)).toBe(43);
    });

    it('keeps tenants apart: the same device id in two tenants has two sequences', async () => {
      expect(await a.next('t2', 'same', 0)).toBe(1);
      expect(await a.next('t3', 'same', 0)).toBe(1);
      expect(await clients[0]!.hget(`${prefix}t2`, 'same')).toBe('1');
    });
  });
}
