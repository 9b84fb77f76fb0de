import { randomUUID } from 'node:crypto';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { EmbeddedBroker } from '../../../src/adapters/mqtt/embedded-broker.js';
import { EmbeddedBrokerSource } from '../../../src/adapters/mqtt/embedded-broker-source.js';
import { MqttSource } from '../../../src/adapters/mqtt/mqtt-source.js';
import { DEV_DEVICE_KEY } from '../../../src/host/security/dev-defaults.js';
import { eventually } from '../../support/app-harness.js';
import { DeviceFleet } from '../../support/mqtt-device.js';
import { requireService } from '../../support/services.js';
import { runIngestionSourceContract, type SourceUnderTest } from '../../realtime/ingestion-source.case.js';

const silent = pino({ level: 'silent' });

/** An MqttSource on `url` and a device client publishing to the same broker. */
async function mqttSource(url: string, protocolVersion: 4 | 5, dispose: () => Promise<void>): Promise<SourceUnderTest> {
  const id = randomUUID().slice(0, 8);
  // QoS 0: a clean session, so the shared broker keeps nothing of the test's once it ends.
  const source = new MqttSource({
    url: () => url,
    clientId: `contract-source-${id}`,
    qos: 0,
    protocolVersion,
    log: silent,
  });
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

// The hub reads its embedded broker in-process; devices publish to it authenticated, each as itself.
runIngestionSourceContract('EmbeddedBrokerSource (MQTT 3.1.1 devices)', async () => {
  const broker = new EmbeddedBroker({
    port: 0,
    host: '127.0.0.1',
    deviceKey: DEV_DEVICE_KEY,
    maxPacketBytes: 65_536,
    maxConnections: 100,
    maxConnectionsPerIp: 100,
    log: silent,
  });
  await broker.start();
  const devices = new DeviceFleet(broker.url);
  return {
    source: new EmbeddedBrokerSource({ broker, log: silent }),
    publish: (tenantId, deviceId, payload) =>
      devices.publishAsync(`tenants/${tenantId}/devices/${deviceId}/telemetry`, Buffer.from(payload), { qos: 1 }),
    carriesTraceparent: false,
    async dispose() {
      await devices.endAsync();
      await broker.stop();
    },
  };
});

if (await requireService('Mosquitto', 1883)) {
  runIngestionSourceContract('MqttSource on Mosquitto (MQTT 5)', () =>
    mqttSource('mqtt://127.0.0.1:1883', 5, async () => undefined),
  );
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
    const source = new MqttSource({
      url: () => url,
      clientId: `readiness-${randomUUID().slice(0, 8)}`,
      qos: 0,
      protocolVersion: 4,
      log: silent,
    });
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
