import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../../src/adapters/redis/bounded-redis-options.js';
import {
  ingestFenceKey,
  ingestLeaseKey,
  type RedisIngestLease,
} from '../../../src/adapters/redis/redis-ingest-lease.js';
import { redisIngestLeases } from '../../../src/adapters/redis/redis-ingest-leases.js';
import { systemClock } from '../../../src/host/clock.js';
import type { PartitionBalancer } from '../../../src/realtime/partition-balancer.js';
import { eventually } from '../../support/app-harness.js';
import { redisOrReport, REDIS_URL } from '../eventhubs/redis-for-tests.js';

// Issue 31 item 1: the external broker's devices in partitions, each leased to one instance, spread
// over the live instances, with a fencing token per partition that names it.
const TTL_MS = 900;

interface Instance {
  id: string;
  /** What it logged at warn level and above (the messages). */
  warnings: string[];
  client: Redis;
  leases: RedisIngestLease[];
  balancer: PartitionBalancer;
  held(): number[];
  stop(): Promise<void>;
}

if (await redisOrReport('ingest partition balancing')) {
  describe('ingest partitions over instances (real Redis)', () => {
    const running: Instance[] = [];
    const clients: Redis[] = [];
    const hubs: string[] = [];
    afterEach(async () => {
      for (const instance of running.splice(0)) await instance.stop();
      // The fencing tokens never expire: this run's go with it.
      const redis = new Redis(REDIS_URL);
      for (const hub of hubs.splice(0)) {
        const keys = await redis.keys(`telemetry-hub:${hub}:*`);
        if (keys.length > 0) await redis.del(...keys);
      }
      redis.disconnect();
      for (const client of clients.splice(0)) client.disconnect();
    });

    function hubName(): string {
      const name = `partitions-${randomUUID()}`;
      hubs.push(name);
      return name;
    }

    async function client(): Promise<Redis> {
      const made = new Redis(REDIS_URL, boundedRedisOptions());
      made.on('error', () => undefined);
      await made.connect();
      clients.push(made);
      return made;
    }

    /** One instance's partition leases and balancer, as the cluster wiring makes them. */
    async function instance(hubName: string, id: string, partitions = 3): Promise<Instance> {
      const redis = await client();
      const warnings: string[] = [];
      const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
      const { leases, service } = redisIngestLeases({
        redis,
        hubName,
        cluster: false,
        partitions,
        ttlMs: TTL_MS,
        clock: systemClock,
        instanceId: id,
        log,
      });
      const balancer = service as PartitionBalancer;
      await balancer.start();
      let stopped = false;
      const made: Instance = {
        id,
        warnings,
        client: redis,
        leases,
        balancer,
        held: () => leases.filter((l) => l.held).map((l) => l.partition),
        async stop() {
          if (stopped) return;
          stopped = true;
          await balancer.stop();
        },
      };
      running.push(made);
      return made;
    }

    /** Every partition held by exactly one of `instances`, each holding `shares[i]`. */
    function spread(instances: Instance[], shares: number[]): boolean {
      const held = instances.map((i) => i.held());
      const all = held.flat().sort((a, b) => a - b);
      const partitions = shares.reduce((a, b) => a + b, 0);
      return (
        all.join() === Array.from({ length: partitions }, (_, i) => i).join() &&
        held.every((h, i) => h.length === shares[i])
      );
    }

    /** Resolves once `id` beat (balanced its share) after now, by Redis's clock. */
    async function beatAgain(redis: Redis, hub: string, id: string, partitions: number): Promise<void> {
      const [seconds, micros] = await redis.time();
      const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
      const key = `telemetry-hub:${hub}:ingest-members:${partitions}`;
      await eventually(async () => Number(await redis.zscore(key, id)) > now, TTL_MS * 4, `${id} to beat again`);
    }

    const refused = (i: Instance) => i.warnings.some((m) => m.startsWith('ingest lease not claimed'));

    it('one instance takes every partition; a second and a third take their shares from it; one leaving gives its share back', async () => {
      const hub = hubName();
      const a = await instance(hub, 'a');
      expect(a.held()).toEqual([0, 1, 2]);
      const b = await instance(hub, 'b');
      // Shares by rank among the members sorted by id: 3 over 2 gives a 2 and b 1.
      await eventually(() => spread([a, b], [2, 1]), 10_000, 'two instances sharing 2 + 1');
      const c = await instance(hub, 'c');
      await eventually(() => spread([a, b, c], [1, 1, 1]), 10_000, 'three instances sharing 1 + 1 + 1');
      const cHeld = c.held()[0]!;
      await c.stop();
      await eventually(
        () => spread([a, b], [2, 1]),
        10_000,
        'two instances again, the third one’s partition taken over',
      );
      expect([...a.held(), ...b.held()]).toContain(cHeld);
    });

    it('an uneven count: no instance is left without a partition (4 over 3: 2 + 1 + 1)', async () => {
      const hub = hubName();
      const [a, b, c] = [await instance(hub, 'a', 4), await instance(hub, 'b', 4), await instance(hub, 'c', 4)];
      await eventually(() => spread([a, b, c], [2, 1, 1]), 10_000, 'four partitions over three instances');
    });

    it('instances started at once settle on their shares without holding a partition twice', async () => {
      const hub = hubName();
      const all = await Promise.all(['a', 'b', 'c'].map((id) => instance(hub, id, 6)));
      await eventually(() => spread(all, [2, 2, 2]), 10_000, 'six partitions over three instances, 2 each');
    });

    it('a crashed instance (gone without releasing or leaving): its partitions are taken once its leases and heartbeat run out', async () => {
      const hub = hubName();
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
        expect(lease.fence! % 3).toBe(partition);
      }
    });

    it('instances with another partition count claim nothing while the cluster’s holders run (a rolling change of Cluster:IngestPartitions), and the holders keep every partition; then they take over', async () => {
      const hub = hubName();
      const old = await instance(hub, 'old');
      expect(old.held()).toEqual([0, 1, 2]);
      // Two partition counts at once would put a device in two partitions, ingested twice.
      const changed = await instance(hub, 'new', 2);
      // Its claims are refused, and the holders, balancing after it joined, keep their share.
      await eventually(() => refused(changed), TTL_MS * 4, 'the new count’s claims refused');
      await beatAgain(changed.client, hub, 'old', 3);
      expect(changed.held()).toEqual([]);
      expect(old.held()).toEqual([0, 1, 2]);
      await old.stop();
      await eventually(
        () => changed.held().length === 2,
        TTL_MS * 6,
        'the new count’s instance holding both partitions',
      );
    });

    it('partitions wait while the single lease is held (an instance of a version without partitions), then are taken', async () => {
      const hub = hubName();
      const redis = await client();
      await redis.set(ingestLeaseKey(hub, false), 'an older instance', 'PX', TTL_MS);
      const a = await instance(hub, 'a');
      await eventually(() => refused(a), TTL_MS * 4, 'its claims refused');
      expect(a.held()).toEqual([]);
      await eventually(() => a.held().length === 3, TTL_MS * 6, 'the partitions taken once the single lease ran out');
    });

    it('tokens name their partition, also for a counter another partition count left behind', async () => {
      const hub = hubName();
      const redis = await client();
      // ≡ 2 (mod 3): not a token partition 1 would have been given.
      await redis.set(ingestFenceKey(hub, false, 1, 3), '1000001');
      const a = await instance(hub, 'a');
      for (const lease of a.leases) expect(lease.fence! % 3).toBe(lease.partition);
      // The next number above it that is ≡ 1.
      expect(a.leases[1]!.fence!).toBe(1_000_003);
    });

    it('a partition handed on is freed only once its source stopped, and claimed again as a new holding', async () => {
      const hub = hubName();
      const redis = await client();
      const a = await instance(hub, 'a', 2);
      const lease = a.leases[1]!;
      const fence = lease.fence!;
      let sourceStopped!: () => void;
      const stopping = new Promise<void>((resolve) => {
        sourceStopped = resolve;
      });
      const stop = lease.onChange((held) => (held ? undefined : stopping));
      const released = lease.release();
      expect(lease.held).toBe(false);
      // Still this instance's in Redis while its source stops (nobody else connects meanwhile), and
      // not renewed by its own claims either: its time to live runs down past a claim interval.
      const key = ingestLeaseKey(hub, false, 1, 2);
      await eventually(
        async () => {
          expect(lease.held).toBe(false);
          return (await redis.pttl(key)) < TTL_MS / 2;
        },
        TTL_MS * 2,
        'the lease left alone while its source stops',
      );
      expect(await redis.exists(key)).toBe(1);
      sourceStopped();
      await released;
      stop();
      await eventually(() => lease.held, 10_000, 'the partition claimed again within the share');
      expect(lease.fence!).toBeGreaterThan(fence);
    });
  });
}
