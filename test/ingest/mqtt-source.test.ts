import { randomUUID } from 'node:crypto';
import mqtt from 'mqtt';
import { pino } from 'pino';
import { EmbeddedBroker } from '../../src/ingest/mqtt/embedded-broker.js';
import { MqttSource } from '../../src/ingest/mqtt/mqtt-source.js';
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
