import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import mqtt, { type MqttClient } from 'mqtt';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MqttSource } from '../../../src/adapters/mqtt/mqtt-source.js';
import { RedisRedeliveryWindow } from '../../../src/adapters/redis/redis-redelivery-window.js';
import { RedisSeqAllocator } from '../../../src/adapters/redis/redis-seq-allocator.js';
import { systemClock } from '../../../src/host/clock.js';
import { DeviceRegistry } from '../../../src/realtime/device-registry.js';
import { ReadingPipeline } from '../../../src/realtime/reading-pipeline.js';
import { LocalRedeliveryWindow, type RedeliveryWindow } from '../../../src/realtime/redelivery-window.js';
import type { SeqAllocator } from '../../../src/realtime/seq-allocator.js';
import { TELEMETRY_SUBSCRIPTION, telemetryReading } from '../../../src/wire/telemetry-topic.js';
import type { Reading } from '../../../src/wire/reading.js';
import { eventually } from '../../support/app-harness.js';
import { privateMosquitto, requireCommand, type PrivateServer } from '../../support/private-server.js';
import { deleteKeys, redisOrReport, REDIS_URL } from '../eventhubs/redis-for-tests.js';

let MOSQUITTO = '';
const silent = pino({ level: 'silent' });

function pipelineWith(redelivery: RedeliveryWindow, seq?: SeqAllocator) {
  const published: Reading[] = [];
  const pipeline = new ReadingPipeline({
    registry: new DeviceRegistry({}),
    clock: systemClock,
    maxPerSecond: Infinity,
    logger: silent,
    redelivery,
    ...(seq ? { seq } : {}),
    publish: (reading) => published.push(reading),
  });
  return { pipeline, published };
}

if (requireCommand('mosquitto', 'a private broker to resend to') && (await redisOrReport('MQTT redelivery'))) {
  describe('a reading the broker or the device delivers again keeps its seq (real Mosquitto)', () => {
    const cleanup: (() => Promise<unknown>)[] = [];
    let broker: PrivateServer;
    beforeAll(async () => {
      broker = await privateMosquitto();
      await broker.start();
      MOSQUITTO = `mqtt://127.0.0.1:${broker.port}`;
    });
    afterAll(async () => broker?.stop());
    afterEach(async () => {
      for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
    });

    async function device(): Promise<MqttClient> {
      const client = await mqtt.connectAsync(MOSQUITTO, {
        clientId: `redelivery-device-${randomUUID().slice(0, 8)}`,
        protocolVersion: 5,
      });
      cleanup.push(() => client.endAsync());
      return client;
    }

    it('an ingester killed before its acknowledgement: the broker resends the reading to the next one with the same session, which recognises it and gives it no second seq', async () => {
      const id = randomUUID().slice(0, 8);
      const prefix = `redelivery-${id}:`;
      const clientId = `redelivery-hub-${id}`;
      const tenant = `t${id}`;
      const redis = [
        new Redis(REDIS_URL, { enableAutoPipelining: true }),
        new Redis(REDIS_URL, { enableAutoPipelining: true }),
      ];
      cleanup.push(async () => {
        await deleteKeys(redis[0]!, prefix);
        for (const r of redis) r.disconnect();
      });
      const cluster = (r: Redis) =>
        pipelineWith(
          new RedisRedeliveryWindow({
            redis: r,
            keyPrefix: `${prefix}redelivery:`,
            fenceKeyOf: () => `${prefix}fence`,
            publishedKey: `${prefix}published-seqs`,
            windowMs: 60_000,
            clock: systemClock,
            log: silent,
          }),
          new RedisSeqAllocator(r, { keyPrefix: `${prefix}seq:`, fenceKeyOf: () => `${prefix}fence`, blockSize: 10 }),
        );

      // The first ingester takes the reading in and dies before its PUBACK goes out.
      const first = cluster(redis[0]!);
      const doomed = await mqtt.connectAsync(MOSQUITTO, {
        clientId,
        protocolVersion: 5,
        clean: false,
        properties: { sessionExpiryInterval: 60 },
        reconnectPeriod: 0,
      });
      cleanup.push(async () => doomed.end(true));
      doomed.handleMessage = (packet, _ack) => {
        // No acknowledgement: the process "crashes" before mqtt.js would send it.
        if (packet.cmd !== 'publish') return;
        // As MqttSource hands a QoS 1 message on.
        const raw = telemetryReading(packet.topic, packet.payload as Buffer);
        raw.resendable = true;
        first.pipeline.offer(raw);
      };
      await doomed.subscribeAsync(TELEMETRY_SUBSCRIPTION, { qos: 1 });
      const dev = await device();
      await dev.publishAsync(
        `tenants/${tenant}/devices/d1/telemetry`,
        JSON.stringify({ ts: 1_700_000_000_000, t: 21.5 }),
        { qos: 1 },
      );
      await eventually(() => first.published.length === 1, 5000, 'the first ingester to accept the reading');
      await first.pipeline.settled();
      expect(first.published[0]!.seq).toBe(1);
      // What the first ingester remembered reached Redis (one batch per turn), then it dies.
      await eventually(
        async () => (await redis[0]!.keys(`${prefix}redelivery:*`)).length > 0,
        5000,
        'the identity in Redis',
      );
      (doomed.stream as { destroy(): void }).destroy();
      doomed.end(true);

      // The next ingester resumes the session: the broker resends the unacknowledged reading.
      const next = cluster(redis[1]!);
      const source = new MqttSource({
        url: () => MOSQUITTO,
        clientId,
        qos: 1,
        sessionExpirySeconds: 60,
        protocolVersion: 5,
        log: silent,
      });
      const stop = new AbortController();
      const running = source.run(next.pipeline, stop.signal);
      cleanup.push(async () => {
        stop.abort();
        await running;
      });
      await eventually(
        () => next.pipeline.stats().dropped.redelivered === 1,
        10_000,
        'the resent reading to be recognised',
      );
      expect(next.published).toEqual([]);

      // A new reading continues the sequence after the one the first ingester numbered.
      await dev.publishAsync(
        `tenants/${tenant}/devices/d1/telemetry`,
        JSON.stringify({ ts: 1_700_000_001_000, t: 21.6 }),
        { qos: 1 },
      );
      await eventually(() => next.published.length === 1, 5000, 'the new reading');
      expect(next.published[0]!.seq).toBeGreaterThan(1);
      expect(next.published[0]!.data).toEqual({ t: 21.6 });
    });

    it('a single hub: a reading republished by its device keeps its first seq (by msgId, or by ts and payload); readings without either are all kept', async () => {
      const id = randomUUID().slice(0, 8);
      const tenant = `t${id}`;
      const hub = pipelineWith(new LocalRedeliveryWindow({ windowMs: 60_000, clock: systemClock }));
      const source = new MqttSource({
        url: () => MOSQUITTO,
        clientId: `redelivery-single-${id}`,
        qos: 1,
        protocolVersion: 5,
        log: silent,
      });
      const stop = new AbortController();
      const running = source.run(hub.pipeline, stop.signal);
      cleanup.push(async () => {
        stop.abort();
        await running;
      });
      await eventually(() => source.connected, 5000, 'the source to subscribe');
      const dev = await device();
      const topic = `tenants/${tenant}/devices/d1/telemetry`;
      const send = (body: object) => dev.publishAsync(topic, JSON.stringify(body), { qos: 1 });
      await send({ ts: 1_700_000_000_000, t: 1 });
      await send({ ts: 1_700_000_000_000, t: 1 }); // the same reading again
      await send({ msgId: 'm-7', ts: 1_700_000_000_500, t: 2 });
      await send({ msgId: 'm-7', ts: 1_700_000_000_900, t: 2 }); // same message id, stamped again
      await send({ t: 3 });
      await send({ t: 3 }); // no time, no id: a device whose value did not change
      await eventually(
        () => hub.published.length + hub.pipeline.stats().dropped.redelivered === 6,
        5000,
        'all six deliveries',
      );
      expect(hub.pipeline.stats().dropped.redelivered).toBe(2);
      expect(hub.published.map((r) => [r.seq, r.data['t']])).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 3],
      ]);
    });
  });
}
