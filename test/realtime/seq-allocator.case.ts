/**
 * The SeqAllocator contract every implementation runs (the checkpoint-store pattern): what the
 * reading pipeline relies on when it numbers a device's readings. Each instance asks with the last
 * `seq` it knows (its floor) and gets the next one; instances sharing a counter continue one
 * sequence, a counter that lags moves up to the floor instead of repeating a number, and tenants
 * never share a sequence. A new allocator is one factory.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { SeqAllocator } from '../../src/realtime/seq-allocator.js';

export interface SeqCluster {
  /** Instances sharing one counter (as a cluster shares Redis). */
  readonly instances: readonly SeqAllocator[];
  dispose(): Promise<void>;
}

export function runSeqAllocatorContract(name: string, createCluster: (size: number) => Promise<SeqCluster>): void {
  describe(`${name} (SeqAllocator contract)`, () => {
    let cluster: SeqCluster | undefined;
    const start = async (size: number): Promise<readonly SeqAllocator[]> => {
      cluster = await createCluster(size);
      return cluster.instances;
    };
    afterEach(async () => {
      await cluster?.dispose();
      cluster = undefined;
    });
    /** A tenant of this test alone: a shared counter may hold other tests' devices. */
    const tenant = () => `t-${randomUUID().slice(0, 8)}`;

    it("a device's first seq is 1, and an instance asking with the last it got counts 1, 2, 3…", async () => {
      const [a] = await start(1);
      const t = tenant();
      const got: number[] = [];
      for (let i = 0; i < 5; i++) got.push(await a!.next(t, 'boiler', got.at(-1) ?? 0));
      expect(got).toEqual([1, 2, 3, 4, 5]);
    });

    it("never answers at or below the caller's floor: a device first seen at seq 41 continues above it, one by one", async () => {
      const [a] = await start(1);
      const t = tenant();
      // Dense (42) where the allocator knows the device has no counter elsewhere; past the time in
      // ms where it cannot tell (RedisSeqAllocator: a counter Redis lost).
      const first = await a!.next(t, 'pump', 41);
      expect(first).toBeGreaterThan(41);
      expect(await a!.next(t, 'pump', first)).toBe(first + 1);
    });

    it('devices and tenants have their own sequences: the same device id in two tenants counts twice from 1', async () => {
      const [a] = await start(1);
      const [t1, t2] = [tenant(), tenant()];
      expect(await a!.next(t1, 'same', 0)).toBe(1);
      expect(await a!.next(t1, 'other', 0)).toBe(1);
      expect(await a!.next(t2, 'same', 0)).toBe(1);
      expect(await a!.next(t1, 'same', 1)).toBe(2);
    });

    it('two instances asking for one device at once continue one sequence: no number twice, none skipped', async () => {
      const [a, b] = await start(2);
      const t = tenant();
      const got = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a! : b!).next(t, 'dev', 0)));
      expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    });

    it("one instance's answers come in the order it asked", async () => {
      const [a] = await start(1);
      const t = tenant();
      const got = await Promise.all(Array.from({ length: 100 }, () => a!.next(t, 'ordered', 0)));
      expect(got).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    });

    it("a counter behind the caller's floor (it lost its data) moves up to it, and every instance continues from there", async () => {
      const [a, b] = await start(2);
      const t = tenant();
      expect(await a!.next(t, 'floor', 0)).toBe(1);
      expect(await b!.next(t, 'floor', 41)).toBe(42);
      expect(await a!.next(t, 'floor', 1)).toBe(43);
    });
  });
}
