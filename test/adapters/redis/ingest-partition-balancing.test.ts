import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../../src/adapters/redis/bounded-redis-options.js';
import {
  ingestFenceKey,
  ingestLeaseKey,
  ingestPartitionsKey,
  RedisIngestLease,
} from '../../../src/adapters/redis/redis-ingest-lease.js';
import { RedisMembership } from '../../../src/adapters/redis/redis-membership.js';
import { systemClock } from '../../../src/host/clock.js';
import { PartitionBalancer } from '../../../src/realtime/partition-balancer.js';
import { eventually } from '../../support/app-harness.js';
import { redisOrReport, REDIS_URL, uniquePrefix } from '../eventhubs/redis-for-tests.js';

// Issue 31 item 1: the external broker's devices in partitions, each leased to one instance, spread
// over the live instances, with a fencing token per partition that names it.
const TTL_MS = 900;
const PARTITIONS = 3;
const silent = pino({ level: 'silent' });

interface Instance {
  id: string;
  client: Redis;
  leases: RedisIngestLease[];
  balancer: PartitionBalancer;
  held(): number[];
  stop(): Promise<void>;
}

if (await redisOrReport('ingest partition balancing')) {
  describe('ingest partitions over instances (real Redis)', () => {
    const running: Instance[] = [];
    afterEach(async () => {
      for (const instance of running.splice(0)) await instance.stop();
    });

    async function instance(hubName: string, id: string, partitions = PARTITIONS): Promise<Instance> {
      const client = new Redis(REDIS_URL, boundedRedisOptions());
      client.on('error', () => undefined);
      await client.connect();
      let balancer: PartitionBalancer | undefined;
      const leases = Array.from(
        { length: partitions },
        (_, index) =>
          new RedisIngestLease({
            redis: client,
            key: ingestLeaseKey(hubName, false, index, partitions),
            fenceKey: ingestFenceKey(hubName, false, index, partitions),
            countKey: ingestPartitionsKey(hubName, false),
            ttlMs: TTL_MS,
            clock: systemClock,
            log: silent,
            instanceId: id,
            partition: { index, count: partitions },
            wants: () => balancer!.wants(),
          }),
      );
      balancer = new PartitionBalancer({
        leases,
        membership: new RedisMembership({
          redis: client,
          key: `${hubName}:members`,
          instanceId: id,
          ttlMs: TTL_MS,
          log: silent,
        }),
        intervalMs: TTL_MS / 3,
        clock: systemClock,
        log: silent,
      });
      await balancer.start();
      for (const lease of leases) await lease.start();
      let stopped = false;
      const made: Instance = {
        id,
        client,
        leases,
        balancer,
        held: () => leases.filter((l) => l.held).map((l) => l.partition),
        async stop() {
          if (stopped) return;
          stopped = true;
          for (const lease of leases) await lease.stop();
          await balancer!.stop();
          client.disconnect();
        },
      };
      running.push(made);
      return made;
    }

    /** Every partition held by exactly one of `instances`, each holding `shares[i]`. */
    function spread(instances: Instance[], shares: number[]): boolean {
      const held = instances.map((i) => i.held());
      const all = held.flat().sort();
      return all.join() === [0, 1, 2].join() && held.every((h, i) => h.length === shares[i]);
    }

    it('one instance takes every partition; a second and a third take their shares from it; one leaving gives its share back', async () => {
      const hub = uniquePrefix();
      const a = await instance(hub, 'a');
      expect(a.held()).toEqual([0, 1, 2]);
      const b = await instance(hub, 'b');
      await eventually(() => spread([a, b], [2, 1]), 10_000, 'two instances sharing 2 + 1');
      const c = await instance(hub, 'c');
      await eventually(() => spread([a, b, c], [1, 1, 1]), 10_000, 'three instances sharing 1 + 1 + 1');
      const cHeld = c.held()[0]!;
      await c.stop();
      await eventually(
        () => spread([a, b], [1, 2]) || spread([a, b], [2, 1]),
        10_000,
        'two instances again, the third one’s partition taken over',
      );
      expect([...a.held(), ...b.held()]).toContain(cHeld);
    });

    it('a crashed instance (gone without releasing or leaving): its partitions are taken once its leases and heartbeat run out', async () => {
      const hub = uniquePrefix();
      const a = await instance(hub, 'a');
      const b = await instance(hub, 'b');
      await eventually(() => spread([a, b], [2, 1]), 10_000, 'two instances sharing 2 + 1');
      const before = new Map(b.leases.filter((l) => l.held).map((l) => [l.partition, l.fence!]));
      // No release, no leave: the connection just drops, as a killed process's does.
      b.client.disconnect();
      await eventually(() => a.held().length === 3, TTL_MS * 10, 'the survivor holding every partition');
      for (const [partition, fence] of before) {
        const lease = a.leases[partition]!;
        // A new holding with a higher token, still naming its partition.
        expect(lease.fence!).toBeGreaterThan(fence);
        expect(lease.fence! % PARTITIONS).toBe(partition);
      }
    });

    it('instances with another partition count claim nothing while the cluster’s holders run (a rolling change of Cluster:IngestPartitions), then take over', async () => {
      const hub = uniquePrefix();
      const old = await instance(hub, 'old');
      expect(old.held()).toEqual([0, 1, 2]);
      // Two partition counts at once would put a device in two partitions, ingested twice.
      const changed = await instance(hub, 'new', 2);
      await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
      expect(changed.held()).toEqual([]);
      await old.stop();
      await eventually(
        () => changed.held().length === 2,
        TTL_MS * 6,
        'the new count’s instance holding both its partitions',
      );
    });

    it('tokens name their partition, also for a counter another partition count left behind; a release hands the partition on at the next claim', async () => {
      const hub = uniquePrefix();
      const redis = new Redis(REDIS_URL, boundedRedisOptions());
      await redis.connect();
      try {
        // A token left ≡ 1 (mod 2) by a cluster that ran with two partitions.
        await redis.set(ingestFenceKey(hub, false, 1, PARTITIONS), '1000001');
        const a = await instance(hub, 'a');
        for (const lease of a.leases) expect(lease.fence! % PARTITIONS).toBe(lease.partition);
        expect(a.leases[1]!.fence!).toBeGreaterThan(1_000_001);
        const b = await instance(hub, 'b');
        await eventually(() => spread([a, b], [2, 1]), 10_000, 'two instances sharing 2 + 1');
        const moved = b.leases.find((l) => l.held)!;
        const fence = moved.fence!;
        // b hands its partition on (a, at its share, leaves it) and claims it again at its next
        // claim, as a new holding.
        await moved.release();
        expect(moved.held).toBe(false);
        await eventually(() => moved.held, 10_000, 'b claiming it again once its share allows');
        expect(moved.fence!).toBeGreaterThan(fence);
      } finally {
        redis.disconnect();
      }
    });
  });
}
