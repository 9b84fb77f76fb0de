import mqtt from 'mqtt';
import { pino } from 'pino';
import { EmbeddedBroker } from '../../src/ingest/mqtt/embedded-broker.js';

export interface AnchorFeed {
  /** Where the publisher sends readings. */
  brokerUrl: string;
  close(): Promise<void>;
}

/**
 * What feeds an anchor server: a bare mqtt.js subscription to the bench tenant's telemetry, on
 * Mosquitto or on an aedes broker inside this process (as the hub embeds its own). No validation,
 * no throttle: the anchor hands each payload straight to `onMessage`.
 */
export async function startAnchorFeed(
  broker: string | undefined,
  topic: string,
  onMessage: (topic: string, payload: Buffer) => void,
): Promise<AnchorFeed> {
  let embedded: EmbeddedBroker | undefined;
  if (broker === undefined) {
    embedded = new EmbeddedBroker({ port: 0, host: '127.0.0.1', log: pino({ level: 'silent' }) });
    await embedded.start();
  }
  const brokerUrl = broker ?? embedded!.url;
  const client = mqtt.connect(brokerUrl, {
    clientId: `bench-anchor-${process.pid}-${Date.now()}`,
    protocolVersion: embedded ? 4 : 5,
    clean: true,
    reconnectPeriod: 0,
  });
  await new Promise<void>((resolve, reject) => {
    client.once('error', reject);
    client.once('connect', () => {
      (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      client.subscribe(topic, { qos: 0 }, (err) => (err ? reject(err) : resolve()));
    });
  });
  client.on('message', onMessage);
  return {
    brokerUrl,
    close: async () => {
      await client.endAsync(true);
      await embedded?.stop();
    },
  };
}

/** `tenants/{tenant}/devices/{device}/telemetry` → device id, without splitting the whole topic. */
export function deviceOfTopic(topic: string): string {
  const end = topic.lastIndexOf('/');
  const start = topic.lastIndexOf('/', end - 1) + 1;
  return topic.slice(start, end);
}
