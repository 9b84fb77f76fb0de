import mqtt, { type MqttClient } from 'mqtt';
import { TELEMETRY_SUBSCRIPTION } from '../../src/wire/telemetry-topic.js';

/**
 * A second persistent QoS 1 session on Mosquitto, as the hubs' (MQTT 5, a session that outlives
 * the connection), that only notes the `msgId` of every reading the broker delivers to it. A
 * reading no hub follower got, the history does not hold and the witness never got either was
 * acknowledged to the device and then lost by the broker itself: Mosquitto 2.0.11 does that to a
 * few readings it is handling when it gets SIGTERM (bench/soak/README.md, finding 9).
 */
export interface BrokerWitness {
  has(msgId: string): boolean;
  /** How many distinct readings it received. */
  readonly received: number;
  close(): Promise<void>;
}

export async function brokerWitness(url: string): Promise<BrokerWitness> {
  const seen = new Set<string>();
  const client: MqttClient = await mqtt.connectAsync(url, {
    clientId: `soak-witness-${process.pid}`,
    protocolVersion: 5,
    clean: false,
    properties: { sessionExpiryInterval: 3600 },
    reconnectPeriod: 200,
    resubscribe: true,
  });
  client.on('message', (_topic, payload) => {
    const text = payload.toString();
    const at = text.indexOf('"msgId":"');
    if (at < 0) return;
    const from = at + 9;
    seen.add(text.slice(from, text.indexOf('"', from)));
  });
  await client.subscribeAsync(TELEMETRY_SUBSCRIPTION, { qos: 1 });
  return {
    has: (msgId) => seen.has(msgId),
    get received() {
      return seen.size;
    },
    close: async () => {
      await client.endAsync(true);
    },
  };
}
