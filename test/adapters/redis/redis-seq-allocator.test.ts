import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisSeqAllocator } from '../../../src/adapters/redis/redis-seq-allocator.js';
import { SeqRefused } from '../../../src/wire/seq-refused.js';
import { deleteKeys, redisOrReport, REDIS_URL, uniquePrefix } from '../eventhubs/redis-for-tests.js';
import { runSeqAllocatorContract } from '../../realtime/seq-allocator.case.js';

if (await redisOrReport('RedisSeqAllocator')) {
  runSeqAllocatorContract('RedisSeqAllocator', async (size) => {
    const prefix = `${uniquePrefix()}seq:`;
    const clients = Array.from({ length: size }, () => new Redis(REDIS_URL, { enableAutoPipelining: true }));
    return {
      instances: clients.map(
        (c) => new RedisSeqAllocator(c, { keyPrefix: prefix, fenceKeyOf: () => `${prefix}fence`, blockSize: 10 }),
      ),
      dispose: async () => {
        await deleteKeys(clients[0]!, prefix);
        await Promise.all(clients.map((c) => c.quit()));
      },
    };
  });

  describe('RedisSeqAllocator (real Redis)', () => {
    const prefix = `${uniquePrefix()}seq:`;
    // Two instances: each with its own connection, as two processes have.
    const clients = [
      new Redis(REDIS_URL, { enableAutoPipelining: true }),
      new Redis(REDIS_URL, { enableAutoPipelining: true }),
    ];
    const [a, b] = clients.map(
      (c) => new RedisSeqAllocator(c, { keyPrefix: prefix, fenceKeyOf: () => `${prefix}fence`, blockSize: 10 }),
    ) as [RedisSeqAllocator, RedisSeqAllocator];

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

    it('a device it numbered before whose counter Redis lost continues past the time in ms, never back where another instance was', async () => {
      // Before the loss an ingester whose readings this instance never saw took the device to 679;
      // this one last saw 247. Redis then restarted empty: neither counter nor fence is there.
      await clients[0]!.set(`${prefix}fence`, '12');
      const before = Date.now();
      const first = await a.next('t7', 'lost', 247, 12);
      expect(first).toBeGreaterThanOrEqual(before);
      expect(await a.next('t7', 'lost', 247, 12)).toBe(first + 1);
      // Unfenced (one seq per round trip) the same.
      expect(await b.next('t8', 'lost', 247)).toBeGreaterThanOrEqual(before);
      // A device new to the cluster still starts at 1.
      expect(await a.next('t7', 'new', 0, 12)).toBe(1);
    });

    it('keeps tenants apart: the same device id in two tenants has two sequences', async () => {
      expect(await a.next('t2', 'same', 0)).toBe(1);
      expect(await a.next('t3', 'same', 0)).toBe(1);
      expect(await clients[0]!.hget(`${prefix}t2`, 'same')).toBe('1');
    });

    it("the lease holder's readings are numbered from blocks: one round trip serves a block, most answers come without waiting", async () => {
      await clients[0]!.set(`${prefix}fence`, '1');
      const got: number[] = [];
      let waited = 0;
      for (let i = 0; i < 25; i++) {
        const n = a.next('t4', 'blocks', got.at(-1) ?? 0, 1);
        if (typeof n !== 'number') waited++;
        got.push(await n);
      }
      expect(got).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      expect(waited).toBe(3);
      // Three blocks of 10 reserved in Redis.
      expect(await clients[0]!.hget(`${prefix}t4`, 'blocks')).toBe('30');
    });

    it('asks for the next block once half of one is handed out: a device whose readings come further apart than a round trip waits only for its first', async () => {
      await clients[0]!.set(`${prefix}fence`, '1');
      const got: number[] = [];
      let waited = 0;
      for (let i = 0; i < 35; i++) {
        const n = a.next('t4', 'spare', got.at(-1) ?? 0, 1);
        if (typeof n !== 'number') waited++;
        got.push(await n);
        // The time between two readings: long enough for an answer from Redis (on a's connection,
        // so it comes after the answer to any block a asked for).
        await clients[0]!.ping();
      }
      expect(got).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
      expect(waited).toBe(1);
      // Four blocks of 10 reserved: the fourth asked for at seq 26.
      expect(await clients[0]!.hget(`${prefix}t4`, 'spare')).toBe('40');
    });

    it("a successor's block starts after anything the predecessor could hand out, and the predecessor gets no new block", async () => {
      await clients[0]!.set(`${prefix}fence`, '7');
      const before = [await a.next('t5', 'failover', 0, 7), await a.next('t5', 'failover', 1, 7)];
      expect(before).toEqual([1, 2]);
      // The lease moves to b (a new fencing token): b's first seq is past a's whole block.
      await clients[0]!.set(`${prefix}fence`, '8');
      expect(await b.next('t5', 'failover', 0, 8)).toBe(11);
      // a has not noticed: it may still number from its old block (what it publishes is fenced
      // elsewhere), but Redis refuses it a new block, and this allocator refuses a stale token once it saw a newer one.
      await expect(Promise.resolve(a.next('t5', 'other', 0, 7))).rejects.toBeInstanceOf(SeqRefused);
      expect(() => b.next('t5', 'failover', 11, 7)).toThrow(SeqRefused);
    });

    it('a floor past the block (readings another instance numbered, learned meanwhile) takes a new block above it', async () => {
      await clients[0]!.set(`${prefix}fence`, '9');
      expect(await a.next('t6', 'learned', 0, 9)).toBe(1);
      expect(await a.next('t6', 'learned', 55, 9)).toBe(56);
    });
  });
}
