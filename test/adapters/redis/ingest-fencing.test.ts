import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../../src/adapters/redis/bounded-redis-options.js';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';
import { ingestFenceKey, RedisIngestLease } from '../../../src/adapters/redis/redis-ingest-lease.js';
import { RedisSeqAllocator } from '../../../src/adapters/redis/redis-seq-allocator.js';
import { SharedLastValues } from '../../../src/adapters/redis/shared-last-values.js';
import { systemClock, type Clock } from '../../../src/host/clock.js';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import { Hub } from '../../../src/realtime/hub.js';
import type { ReadingSink } from '../../../src/realtime/ingestion-source.js';
import { LeasedSource } from '../../../src/realtime/leased-source.js';
import { ReadingPipeline } from '../../../src/realtime/reading-pipeline.js';
import type { RawReading } from '../../../src/wire/raw-reading.js';
import { eventually } from '../../support/app-harness.js';
import { deleteKeys, redisOrReport, REDIS_URL } from '../eventhubs/redis-for-tests.js';

const TTL_MS = 1500;
const silent = pino({ level: 'silent' });

/** A source the test feeds by hand: what the broker would deliver while this instance ingests. */
class HandSource {
  readonly name = 'hand';
  readonly connected = true;
  sink: ReadingSink | undefined;
  run(sink: ReadingSink, signal: AbortSignal): Promise<void> {
    this.sink = sink;
    return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }
  deliver(deviceId: string, n: number): RawReading {
    const raw: RawReading = { tenantId: 't1', deviceId, payload: new TextEncoder().encode(JSON.stringify({ n })) };
    this.sink!.offer(raw);
    return raw;
  }
}

if (await redisOrReport('ingest fencing')) {
  describe('ingest fencing (real Redis): a stale ingester numbers and publishes nothing after its successor began', () => {
    const open: { stop(): Promise<void> }[] = [];
    afterEach(async () => {
      for (const o of open.splice(0).reverse()) await o.stop();
    });

    /** One instance of a cluster: its lease, seq blocks, last values, backplane and pipeline. */
    async function instance(hubName: string, name: string, clock: Clock = systemClock) {
      const redis = new Redis(REDIS_URL, { ...boundedRedisOptions(), enableAutoPipelining: true });
      redis.on('error', () => undefined);
      await redis.connect();
      const keyPrefix = `telemetry-hub:${hubName}:`;
      const fenceKey = ingestFenceKey(hubName);
      const lease = new RedisIngestLease({
        redis,
        key: `${keyPrefix}ingest-lease`,
        fenceKey,
        ttlMs: TTL_MS,
        clock,
        log: silent,
        instanceId: name,
      });
      const registry = new DeviceRegistry({});
      const backplane = new RedisBackplane({ url: REDIS_URL, hubName, log: silent });
      await backplane.start();
      const hub = new Hub({ backplane });
      const lastValues = new SharedLastValues(redis, { keyPrefix, fenceKeyOf: () => fenceKey, registry, log: silent });
      const dropped: string[] = [];
      const pipeline = new ReadingPipeline({
        registry,
        clock,
        maxPerSecond: Infinity,
        seq: new RedisSeqAllocator(redis, { keyPrefix: `${keyPrefix}seq:`, fenceKeyOf: () => fenceKey, blockSize: 10 }),
        logger: { warn: (o: object) => dropped.push(String((o as { reason?: string }).reason)) },
        publish: (reading) => {
          hub.publishReading(reading);
          lastValues.write(reading);
        },
      });
      const source = new HandSource();
      const run = new AbortController();
      const running = new LeasedSource(source, lease, silent).run(pipeline, run.signal);
      const stop = async () => {
        run.abort();
        await running;
        await lease.stop();
        await backplane.stop();
        redis.disconnect();
      };
      open.push({ stop });
      await lease.start();
      return { lease, pipeline, source, redis, keyPrefix, dropped };
    }

    /** Every reading published on the device's channel, as other instances receive it. */
    async function watch(hubName: string, deviceId: string) {
      const sub = new Redis(REDIS_URL);
      const seen: number[] = [];
      sub.on('message', (_c: string, text: string) =>
        seen.push((JSON.parse(text) as { envelope: { message: { data: { seq: number } } } }).envelope.message.data.seq),
      );
      await sub.subscribe(`telemetry-hub:${hubName}:group:device:t1:${deviceId}`);
      open.push({ stop: async () => void sub.disconnect() });
      return seen;
    }

    it('a lease taken over while its holder still counts itself the holder: the old holder gets no new block, and what it numbers from its old block is not published nor stored', async () => {
      const hubName = `fence-${randomUUID()}`;
      const a = await instance(hubName, 'a');
      const seen = await watch(hubName, 'd1');
      expect(a.lease.held).toBe(true);
      a.source.deliver('d1', 1);
      await eventually(() => seen.length === 1, 5000, 'the first reading on the backplane');
      expect(seen).toEqual([1]);

      // The lease is taken from under the holder (lost in Redis), and a successor acquires it.
      await a.redis.del(`${a.keyPrefix}ingest-lease`);
      const b = await instance(hubName, 'b');
      await eventually(() => b.lease.held, 5000, 'the successor to hold the lease');
      expect(b.lease.fence).toBeGreaterThan(a.lease.fence!);
      expect(a.lease.held).toBe(true); // it has not noticed yet

      // The stale holder: a device it has no block for is refused a seq; one it has a block for is
      // numbered locally but nothing it publishes or stores reaches the cluster.
      a.source.deliver('d2', 1);
      a.source.deliver('d1', 2);
      await a.pipeline.settled();
      expect(a.pipeline.stats().dropped.fenced).toBe(1);
      expect(await a.redis.hget(`${a.keyPrefix}seq:t1`, 'd2')).toBeNull();

      // The successor's readings of d1 follow everything the stale holder could have numbered.
      b.source.deliver('d1', 3);
      await eventually(() => seen.length === 2, 5000, "the successor's reading on the backplane");
      expect(seen[1]).toBeGreaterThan(10);
      expect(seen).toHaveLength(2);
      // The device's last value is the successor's reading; the stale holder's never got there.
      const last = async () =>
        (JSON.parse((await a.redis.hget(`${a.keyPrefix}last:t1`, 'd1')) ?? '{}') as { data?: { n: number } }).data?.n;
      await eventually(async () => (await last()) === 3, 5000, "the successor's last value");
      await deleteKeys(a.redis, `telemetry-hub:${hubName}:`);
    });

    it('a holder that wakes from a pause longer than its lease refuses what the broker hands it before its timers run', async () => {
      const hubName = `fence-${randomUUID()}`;
      // The clock of a process that slept: monotonic time jumped, no timer has fired yet.
      let slept = 0;
      const paused: Clock = { ...systemClock, monotonicNow: () => systemClock.monotonicNow() + slept };
      const a = await instance(hubName, 'a', paused);
      const seen = await watch(hubName, 'd1');
      a.source.deliver('d1', 1);
      await eventually(() => seen.length === 1, 5000, 'the first reading on the backplane');
      slept = TTL_MS * 2;
      a.source.deliver('d1', 2);
      await a.pipeline.settled();
      expect(a.pipeline.stats().dropped.fenced).toBe(1);
      expect(a.pipeline.stats().accepted).toBe(1);
      expect(seen).toEqual([1]);
      await deleteKeys(a.redis, `telemetry-hub:${hubName}:`);
    });
  });
}
