import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { EmbeddedBroker } from '../../src/ingest/mqtt/embedded-broker.js';
import { MqttSource } from '../../src/ingest/mqtt/mqtt-source.js';
import { eventually } from '../support/app-harness.js';
import { requireService } from '../support/services.js';
import { runIngestionSourceContract, type SourceUnderTest } from './ingestion-source.case.js';

const silent = pino({ level: 'silent' });

/** An MqttSource on `url` and a device client publishing to the same broker. */
async function mqttSource(url: string, protocolVersion: 4 | 5, dispose: () => Promise<void>): Promise<SourceUnderTest> {
  const id = randomUUID().slice(0, 8);
  // QoS 0: a clean session, so the shared broker keeps nothing of the test's once it ends.
  const source = new MqttSource({ url: () => url, clientId: `contract-source-${id}`, qos: 0, protocolVersion, log: silent });
  const device = await mqtt.connectAsync(url, { clientId: `contract-device-${id}`, protocolVersion });
  return {
    source,
    async publish(tenantId, deviceId, payload, traceparent) {
      const properties = traceparent === undefined ? undefined : { userProperties: { traceparent } };
      await device.publishAsync(`tenants/${tenantId}/devices/${deviceId}/telemetry`, Buffer.from(payload), {
        qos: 1,
        ...(properties && protocolVersion === 5 ? { properties } : {}),
      });
    },
    carriesTraceparent: protocolVersion === 5,
    async dispose() {
      await device.endAsync();
      await dispose();
    },
  };
}

runIngestionSourceContract('MqttSource on the embedded broker (MQTT 3.1.1)', async () => {
  const broker = new EmbeddedBroker({ port: 0, log: silent });
  await broker.start();
  return mqttSource(broker.url, 4, () => broker.stop());
});

if (await requireService('Mosquitto', 1883)) {
  runIngestionSourceContract('MqttSource on Mosquitto (MQTT 5)', () => mqttSource('mqtt://127.0.0.1:1883', 5, async () => undefined));
}

describe('MqttSource readiness', () => {
  it('is not connected until the broker acknowledged its subscription, and stops promptly even so', async () => {
    // A broker that takes the subscription request and never answers it.
    const broker = await Aedes.createBroker();
    let subscribeRequested = false;
    broker.authorizeSubscribe = () => {
      subscribeRequested = true;
    };
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      broker.handle(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const source = new MqttSource({ url: () => url, clientId: `readiness-${randomUUID().slice(0, 8)}`, qos: 0, protocolVersion: 4, log: silent });
    const controller = new AbortController();
    const done = source.run({ offer: () => ({ accepted: true }) }, controller.signal);
    try {
      await eventually(() => subscribeRequested, 5000, 'the subscription request');
      expect(source.connected).toBe(false);
    } finally {
      controller.abort();
      await done;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
