import mqtt from 'mqtt';
import { telemetryTopic } from '../ingest/mqtt/telemetry-topic.js';
import type { ReadingPublisher } from './publisher.js';

/** Publishes readings to the contract topic; QoS 0 by default, as sensors usually do. */
export async function createMqttPublisher(url: string, options: { qos?: 0 | 1; clientId?: string } = {}): Promise<ReadingPublisher> {
  const client = await mqtt.connectAsync(url, {
    clientId: options.clientId ?? `sim-${process.pid}-${Math.random().toString(16).slice(2, 8)}`,
    reconnectPeriod: 1000,
    connectTimeout: 10_000,
  });
  (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
  client.on('connect', () => (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true));
  client.on('error', () => undefined);
  const qos = options.qos ?? 0;
  return {
    publish(tenantId, deviceId, payload, traceparent) {
      const properties = traceparent && client.options.protocolVersion === 5 ? { userProperties: { traceparent } } : undefined;
      client.publish(telemetryTopic(tenantId, deviceId), JSON.stringify(payload), { qos, ...(properties ? { properties } : {}) });
    },
    async close() {
      await client.endAsync(false);
    },
  };
}
