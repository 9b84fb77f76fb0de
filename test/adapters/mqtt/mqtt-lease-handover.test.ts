import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import mqtt, { type MqttClient } from 'mqtt';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MqttSource } from '../../../src/adapters/mqtt/mqtt-source.js';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';
import { hubKeyPrefix } from '../../../src/adapters/redis/hub-key-prefix.js';
import { ingestFenceKey, publishedSeqsKey } from '../../../src/adapters/redis/redis-ingest-lease.js';
import { RedisRedeliveryWindow } from '../../../src/adapters/redis/redis-redelivery-window.js';
import { RedisSeqAllocator } from '../../../src/adapters/redis/redis-seq-allocator.js';
import { systemClock } from '../../../src/host/clock.js';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import type { ReadingSink } from '../../../src/realtime/ingestion-source.js';
import { ManualLease } from '../../../src/realtime/ingest-lease.js';
import { LeasedSource } from '../../../src/realtime/leased-source.js';
import { ReadingPipeline } from '../../../src/realtime/reading-pipeline.js';
import type { RawReading } from '../../../src/wire/raw-reading.js';
import { deviceGroup, toWireReading, type Reading } from '../../../src/wire/reading.js';
import { eventually } from '../../support/app-harness.js';
import { freezableProxy } from '../../support/freezable-proxy.js';
import { privateMosquitto, requireCommand, type PrivateServer } from '../../support/private-server.js';
import { deleteKeys, redisOrReport, REDIS_URL } from '../eventhubs/redis-for-tests.js';

const silent = pino({ level: 'silent' });

/** A lease this instance holds under fencing token `fence` (each new holding raises it by one). */
function holding(fence: number): ManualLease {
  const lease = new ManualLease(true);
  for (let n = 1; n < fence; n++) {
    lease.set(false);
    lease.set(true);
  }
  return lease;
}

if (requireCommand('mosquitto', 'a private broker to resend to') && (await redisOrReport('MQTT lease handover'))) {
  describe('a QoS 1 reading across an ingest lease handover gets one seq, and none acknowledged is lost (real Mosquitto, Redis)', () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    let broker: PrivateServer;
    let url = '';
    beforeAll(async () => {
      broker = await privateMosquitto();
      await broker.start();
      url = `mqtt://127.0.0.1:${broker.port}`;
    });
    afterAll(async () => broker?.stop());
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
    });

    async function device(): Promise<MqttClient> {
      const client = await mqtt.connectAsync(url, { clientId: `handover-device-${randomUUID().slice(0, 8)}` });
      cleanup.push(() => client.endAsync());
      return client;
    }

    /** A cluster's names in Redis, of its own hub name. */
    function clusterNamed(id: string) {
      const hubName = `handover-${id}`;
      return { hubName, prefix: hubKeyPrefix(hubName, false), fenceKey: ingestFenceKey(hubName) };
    }

    /**
     * One ingester of the cluster `hubName`: the MQTT session `clientId` through `mqttUrl`, seq
     * blocks, the redelivery window and the backplane's fenced publish over its own Redis
     * connections (`redisPort`). `published`: what it handed on, whether the cluster took it or not.
     */
    async function ingester(options: {
      cluster: ReturnType<typeof clusterNamed>;
      clientId: string;
      lease: ManualLease;
      mqttUrl?: string;
      redisPort?: number;
      /** Sees each reading just before the pipeline does. */
      onOffer?: (raw: RawReading) => void;
      /** Whether its holding still lasts by its own clock; default: while the lease says so. */
      holds?: (fence: number) => boolean;
    }) {
      const redisUrl = options.redisPort ? `redis://127.0.0.1:${options.redisPort}` : REDIS_URL;
      const redis = new Redis(redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
      redis.on('error', () => undefined);
      const { hubName, prefix, fenceKey } = options.cluster;
      const backplane = new RedisBackplane({ url: redisUrl, hubName, log: silent });
      await backplane.start();
      const published: Reading[] = [];
      const pipeline = new ReadingPipeline({
        registry: new DeviceRegistry({}),
        clock: systemClock,
        maxPerSecond: Infinity,
        logger: silent,
        redelivery: new RedisRedeliveryWindow({
          redis,
          keyPrefix: `${prefix}redelivery:`,
          fenceKeyOf: () => fenceKey,
          publishedKey: publishedSeqsKey(hubName),
          windowMs: 60_000,
          clock: systemClock,
          log: silent,
        }),
        seq: new RedisSeqAllocator(redis, { keyPrefix: `${prefix}seq:`, fenceKeyOf: () => fenceKey, blockSize: 10 }),
        holds: options.holds ?? ((fence) => options.lease.fence === fence),
        publish: (reading) => {
          published.push(reading);
          const group = deviceGroup(reading.tenantId, reading.deviceId);
          const data = toWireReading(reading);
          const message = {
            source: { kind: 'group' as const, group },
            dataType: 'json' as const,
            data,
            conflationKey: group,
            kind: 'reading' as const,
          };
          backplane.publish({ kind: 'group', group, message }, reading.fence);
        },
      });
      const sink: ReadingSink = {
        offer: (raw) => {
          options.onOffer?.(raw);
          return pipeline.offer(raw);
        },
        refused: (reason, raw) => pipeline.refused(reason, raw),
      };
      const source = new MqttSource({
        url: () => options.mqttUrl ?? url,
        clientId: options.clientId,
        qos: 1,
        sessionExpirySeconds: 60,
        protocolVersion: 5,
        log: silent,
      });
      const leased = new LeasedSource(source, options.lease, silent);
      const stop = new AbortController();
      const running = leased.run(sink, stop.signal);
      const end = async () => {
        stop.abort();
        await running;
        await backplane.close();
        redis.disconnect();
      };
      cleanup.push(end);
      return { pipeline, published, source, redis, end };
    }

    const numbered = (readings: Reading[], n: number) => readings.filter((r) => r.data['n'] === n).map((r) => r.seq);

    /** A cluster of its own in Redis, its fencing token at `fence`, removed after the test. */
    async function freshCluster(fence: string) {
      const id = randomUUID().slice(0, 8);
      const names = clusterNamed(id);
      const admin = new Redis(REDIS_URL);
      cleanup.push(async () => {
        await deleteKeys(admin, names.prefix);
        admin.disconnect();
      });
      await admin.set(names.fenceKey, fence);
      return { id, names, clientId: `handover-hub-${id}`, admin };
    }

    /** The ways out of a holder's process, to Redis and to the broker, that can stand still as a stopped process's do. */
    async function proxies() {
      const redisProxy = await freezableProxy(6379);
      const mqttProxy = await freezableProxy(broker.port);
      cleanup.push(
        () => redisProxy.close(),
        () => mqttProxy.close(),
      );
      return { redisProxy, mqttProxy };
    }

    it('a holder stopped with readings in flight whose lease ran out and that takes it again at once when continued (nobody claimed it meanwhile, as with partitions): it stops the old turn and ingests again', async () => {
      const { id, names, clientId, admin } = await freshCluster('1');
      const { redisProxy, mqttProxy } = await proxies();
      const lease = holding(1);
      let frozen = false;
      const offered = new Set<number>();
      const a = await ingester({
        cluster: names,
        clientId,
        lease,
        mqttUrl: `mqtt://127.0.0.1:${mqttProxy.port}`,
        redisPort: redisProxy.port,
        onOffer: (raw) => {
          const { n } = JSON.parse(new TextDecoder().decode(raw.payload)) as { n: number };
          offered.add(n);
          if (frozen || n !== 3) return;
          redisProxy.freeze();
          mqttProxy.freeze();
          frozen = true;
        },
      });
      await eventually(() => a.source.connected, 5000, 'the holder to subscribe');
      const dev = await device();
      const topic = `tenants/t${id}/devices/d1/telemetry`;
      for (let n = 1; n <= 3; n++)
        await dev.publishAsync(topic, JSON.stringify({ msgId: `${id}-${n}`, n }), { qos: 1 });
      await eventually(() => frozen, 5000, 'reading 3 taken in');
      // More while it stands still: they wait in the broker and its socket.
      for (let n = 4; n <= 5; n++)
        await dev.publishAsync(topic, JSON.stringify({ msgId: `${id}-${n}`, n }), { qos: 1 });
      // The broker's deliveries still reach it (answers to a stopped process wait in its socket).
      await eventually(() => offered.has(5), 5000, 'readings 4 and 5 in its socket');
      // Continued: its clock says the holding ended (its turn stops), then the messages that waited
      // in its socket arrive, and it claims the lease again at once (a new token).
      lease.set(false);
      redisProxy.thaw();
      mqttProxy.thaw();
      await admin.set(names.fenceKey, '2');
      lease.set(true);
      for (let n = 6; n <= 8; n++)
        await dev.publishAsync(topic, JSON.stringify({ msgId: `${id}-${n}`, n }), { qos: 1 });
      await eventually(
        () => [6, 7, 8].every((n) => numbered(a.published, n).length === 1),
        15_000,
        'readings after the new holding began',
      );
      // Every reading once, none lost: the ones in flight came again on the new holding's connection.
      await eventually(
        () => [1, 2, 3, 4, 5].every((n) => numbered(a.published, n).length >= 1),
        15_000,
        'the readings in flight at the stop',
      );
    });

    it('a holder stopped right after taking a reading in: its successor, given the reading again by the broker, numbers it, and the old holder hands it on nowhere once continued (soak finding 6)', async () => {
      const { id, names, clientId, admin } = await freshCluster('1');
      const { redisProxy, mqttProxy } = await proxies();

      // The holder (fencing token 1) reaches Redis and the broker through proxies that stand for its
      // process: SIGSTOP arrives as it takes reading 2 in, before anything of it left the process.
      let stopped = false;
      const a = await ingester({
        cluster: names,
        clientId,
        lease: holding(1),
        mqttUrl: `mqtt://127.0.0.1:${mqttProxy.port}`,
        redisPort: redisProxy.port,
        onOffer: (raw) => {
          if ((JSON.parse(new TextDecoder().decode(raw.payload)) as { n: number }).n !== 2) return;
          redisProxy.freeze();
          mqttProxy.freeze();
          stopped = true;
        },
      });
      await eventually(() => a.source.connected, 5000, 'the holder to subscribe');
      const dev = await device();
      const topic = `tenants/t${id}/devices/d1/telemetry`;
      await dev.publishAsync(topic, JSON.stringify({ msgId: `${id}-1`, n: 1 }), { qos: 1 });
      await eventually(() => a.published.length === 1, 5000, "the holder's first reading");
      await dev.publishAsync(topic, JSON.stringify({ msgId: `${id}-2`, n: 2 }), { qos: 1 });
      await eventually(() => stopped, 5000, 'reading 2 taken in');

      // The lease runs out while it is stopped; the successor (token 2) resumes the session, and
      // the broker resends what the holder never acknowledged.
      await admin.set(names.fenceKey, '2');
      const b = await ingester({ cluster: names, clientId, lease: holding(2) });
      await eventually(
        () => b.published.length + b.pipeline.stats().dropped.redelivered >= 1,
        10_000,
        'reading 2 at the successor',
      );

      // SIGCONT: what the old holder wrote meanwhile reaches Redis now.
      redisProxy.thaw();
      await a.pipeline.settled();
      await a.end();

      // Reading 2 has one seq, the successor's (after the holder's block of 10).
      expect([...numbered(a.published, 2), ...numbered(b.published, 2)]).toEqual(numbered(b.published, 2));
      expect(numbered(b.published, 2)).toHaveLength(1);
      expect(numbered(b.published, 2)[0]).toBeGreaterThan(10);
      expect(numbered(a.published, 1)).toEqual([1]);
      expect(a.pipeline.stats().dropped.fenced).toBe(1);
    });

    it('a holder stopped while Redis answered its identity call: continued, it hands the reading on nowhere, and its successor, given the reading again, numbers it for the cluster (soak finding 6, what was left)', async () => {
      const { id, names, clientId, admin } = await freshCluster('1');
      const { redisProxy, mqttProxy } = await proxies();

      // SIGSTOP lands as reading 2's identity call is on its way: Redis takes the identity under
      // the still-valid token 1, and its answer waits in the stopped process's socket.
      let stopped = false;
      let lapsed = false;
      const a = await ingester({
        cluster: names,
        clientId,
        lease: holding(1),
        mqttUrl: `mqtt://127.0.0.1:${mqttProxy.port}`,
        redisPort: redisProxy.port,
        holds: (fence) => fence === 1 && !lapsed,
        onOffer: (raw) => {
          if ((JSON.parse(new TextDecoder().decode(raw.payload)) as { n: number }).n !== 2) return;
          redisProxy.holdAnswers();
          mqttProxy.freeze();
          stopped = true;
        },
      });
      await eventually(() => a.source.connected, 5000, 'the holder to subscribe');
      const dev = await device();
      const topic = `tenants/t${id}/devices/d1/telemetry`;
      await dev.publishAsync(topic, JSON.stringify({ msgId: `${id}-1`, n: 1 }), { qos: 1 });
      await eventually(() => a.published.length === 1, 5000, "the holder's first reading");
      await dev.publishAsync(topic, JSON.stringify({ msgId: `${id}-2`, n: 2 }), { qos: 1 });
      await eventually(() => stopped, 5000, 'reading 2 taken in');
      const remembered = async () => {
        let identities = 0;
        for (const key of await admin.keys(`${names.prefix}redelivery:*`)) identities += await admin.hlen(key);
        return identities;
      };
      await eventually(async () => (await remembered()) === 2, 5000, "Redis to take reading 2's identity");

      // Its lease runs out while it is stopped; the successor (token 2) resumes the session, and
      // the broker resends reading 2, which the holder never acknowledged.
      await admin.set(names.fenceKey, '2');
      const b = await ingester({ cluster: names, clientId, lease: holding(2) });
      await eventually(
        () => b.published.length + b.pipeline.stats().dropped.redelivered >= 1,
        10_000,
        'reading 2 at the successor',
      );

      // SIGCONT: its clock says the holding is over, and then the answer is read.
      lapsed = true;
      redisProxy.thaw();
      mqttProxy.thaw();
      await eventually(() => a.pipeline.stats().dropped.fenced === 1, 5000, 'the old holder to drop reading 2');
      await a.end();

      // The cluster was sent reading 2 once, by the successor; the old holder handed it on nowhere.
      expect(b.pipeline.stats().dropped.redelivered).toBe(0);
      expect(numbered(b.published, 2)).toHaveLength(1);
      expect(numbered(b.published, 2)[0]).toBeGreaterThan(10);
      expect(numbered(a.published, 2)).toEqual([]);
      expect(numbered(a.published, 1)).toEqual([1]);
    });

    it('a holder stopped after handing a reading on but before its acknowledgement left: the successor, given the reading again, recognises it and gives it no second seq', async () => {
      const { id, names, clientId, admin } = await freshCluster('1');
      const mqttProxy = await freezableProxy(broker.port);
      cleanup.push(() => mqttProxy.close());
      // Only its way to the broker stands still: the reading reaches Redis and is handed on, and its
      // PUBACK stays in the stopped process.
      const a = await ingester({
        cluster: names,
        clientId,
        lease: holding(1),
        mqttUrl: `mqtt://127.0.0.1:${mqttProxy.port}`,
        onOffer: () => mqttProxy.freeze(),
      });
      await eventually(() => a.source.connected, 5000, 'the holder to subscribe');
      const dev = await device();
      await dev.publishAsync(`tenants/t${id}/devices/d1/telemetry`, JSON.stringify({ msgId: `${id}-1`, n: 1 }), {
        qos: 1,
      });
      await eventually(() => a.published.length === 1, 5000, 'the holder to hand the reading on');

      await admin.set(names.fenceKey, '2');
      const b = await ingester({ cluster: names, clientId, lease: holding(2) });
      await eventually(() => b.pipeline.stats().dropped.redelivered === 1, 10_000, 'the successor to recognise it');
      expect(b.published).toEqual([]);
      expect(numbered(a.published, 1)).toEqual([1]);
    });

    it('a reading whose seq is refused after it was taken in (its holding ended meanwhile) is not acknowledged: the broker sends it again and the next holding numbers it', async () => {
      // A successor took the lease from under this holder while its clock still says it holds it:
      // its first reading of the device waits for a seq block, which Redis refuses.
      const { id, names, clientId } = await freshCluster('2');
      const lease = holding(1);
      const a = await ingester({ cluster: names, clientId, lease });
      await eventually(() => a.source.connected, 5000, 'the holder to subscribe');
      const dev = await device();
      await dev.publishAsync(`tenants/t${id}/devices/d1/telemetry`, JSON.stringify({ msgId: `${id}-1`, n: 1 }), {
        qos: 1,
      });
      await eventually(() => a.pipeline.stats().dropped.fenced >= 1, 5000, 'the reading to be refused its seq');
      expect(a.published).toEqual([]);

      // This instance holds the lease again (token 2): the broker resends the reading, which was
      // never acknowledged, and it is numbered now instead of being taken for a copy.
      lease.set(false);
      lease.set(true);
      expect(lease.fence).toBe(2);
      await eventually(() => a.published.length === 1, 10_000, 'the reading sent again to be numbered');
      expect(numbered(a.published, 1)).toEqual([1]);
      expect(a.pipeline.stats().dropped.redelivered).toBe(0);
    });
  });
}
