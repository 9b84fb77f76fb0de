import mqtt from 'mqtt';
import { pino } from 'pino';
import { EmbeddedBroker } from '../../src/adapters/mqtt/embedded-broker.js';
import { BENCH } from '../harness/bench-config.js';

export interface AnchorFeed {
  /** Where the publisher sends readings. */
  brokerUrl: string;
  close(): Promise<void>;
}

/**
 * What feeds an anchor server: a bare mqtt.js subscription to the bench tenant's telemetry on
 * Mosquitto, or an in-process subscription to an aedes broker inside this process (as the hub reads
 * its own embedded broker; devices authenticate with tokens signed by BENCH.deviceKey). No
 * validation, no throttle: the anchor hands each payload straight to `onMessage`.
 */
export async function startAnchorFeed(
  broker: string | undefined,
  topic: string,
  onMessage: (topic: string, payload: Buffer) => void,
): Promise<AnchorFeed> {
  if (broker === undefined) {
    const embedded = new EmbeddedBroker({
      port: 0,
      host: '127.0.0.1',
      deviceKey: BENCH.deviceKey,
      maxPacketBytes: 65_536,
      maxConnections: BENCH.maxConnectionsPerIp,
      maxConnectionsPerIp: BENCH.maxConnectionsPerIp,
      log: pino({ level: 'silent' }),
    });
    await embedded.start();
    const unsubscribe = await embedded.subscribe(topic, onMessage);
    return {
      brokerUrl: embedded.url,
      close: async () => {
        await unsubscribe();
        await embedded.stop();
      },
    };
  }
  const brokerUrl = broker;
  const client = mqtt.connect(brokerUrl, {
    clientId: `bench-anchor-${process.pid}-${Date.now()}`,
    protocolVersion: 5,
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
    },
  };
}

/** `tenants/{tenant}/devices/{device}/telemetry` → device id, without splitting the whole topic. */
export function deviceOfTopic(topic: string): string {
  const end = topic.lastIndexOf('/');
  const start = topic.lastIndexOf('/', end - 1) + 1;
  return topic.slice(start, end);
}
