import mqtt, { type MqttClient } from 'mqtt';
import { messageId, soakDevice, type SoakDevice } from '../soak/config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';

interface FleetArgs {
  brokerUrl: string;
  devices: number;
  /** Readings per second per device. */
  rate: number;
}

/** What became of one device's readings: when each was sent and when the broker acknowledged it (0: not yet). */
export interface DeviceRecord {
  index: number;
  qos: 0 | 1;
  sentAt: number[];
  ackedAt: number[];
}

/**
 * The soak's device fleet: one MQTT 3.1.1 connection per device (clean session, reconnecting every
 * second), each publishing `rate` readings a second with a `msgId` naming the reading. QoS 1
 * readings count as acknowledged when the broker's PUBACK arrives (mqtt.js calls back then); mqtt.js
 * keeps an unacknowledged one and sends it again after a reconnect.
 */
const args = processArgs<FleetArgs>();
const devices: SoakDevice[] = Array.from({ length: args.devices }, (_, i) => soakDevice(i));
const records: DeviceRecord[] = devices.map((d) => ({ index: d.index, qos: d.qos, sentAt: [], ackedAt: [] }));
const clients: MqttClient[] = [];
const timers: NodeJS.Timeout[] = [];

function publish(device: SoakDevice, client: MqttClient): void {
  const record = records[device.index]!;
  const n = record.sentAt.length + 1;
  const sentAt = Date.now();
  record.sentAt.push(sentAt);
  record.ackedAt.push(0);
  const payload = `{"msgId":"${messageId(device, n)}","ts":${sentAt},"temperature":${(20 + (n % 50) / 10).toFixed(1)}}`;
  client.publish(
    `tenants/${device.tenantId}/devices/${device.deviceId}/telemetry`,
    payload,
    { qos: device.qos },
    (err) => {
      if (!err) record.ackedAt[n - 1] = Date.now();
    },
  );
}

async function connectAll(): Promise<void> {
  let next = 0;
  const one = async () => {
    while (next < devices.length) {
      const device = devices[next++]!;
      const client = mqtt.connect(args.brokerUrl, {
        clientId: `soak-${process.pid}-${device.index}`,
        protocolVersion: 4,
        clean: true,
        reconnectPeriod: 1000,
        connectTimeout: 5000,
      });
      client.on('error', () => undefined);
      clients[device.index] = client;
      await new Promise<void>((resolve, reject) => {
        client.once('connect', () => resolve());
        setTimeout(() => reject(new Error(`device ${device.index} did not connect`)), 30_000);
      });
    }
  };
  await Promise.all(Array.from({ length: 50 }, one));
}

function startPublishing(): void {
  const intervalMs = 1000 / args.rate;
  for (const device of devices) {
    // Spread over the interval, so the fleet publishes evenly rather than in one burst.
    const phase = (device.index / devices.length) * intervalMs;
    timers.push(
      setTimeout(() => {
        publish(device, clients[device.index]!);
        timers.push(setInterval(() => publish(device, clients[device.index]!), intervalMs));
      }, phase),
    );
  }
}

function counts() {
  let sent = 0;
  let acked = 0;
  let unacked = 0;
  for (const r of records) {
    sent += r.sentAt.length;
    for (const a of r.ackedAt) {
      if (a > 0) acked++;
      else if (r.qos === 1) unacked++;
    }
  }
  return { sent, acked, unacked, connected: clients.filter((c) => c?.connected).length };
}

serveParent({
  connect: () => connectAll(),
  start: () => startPublishing(),
  /** Stops publishing; the readings already sent are still acknowledged. */
  stop: () => {
    for (const t of timers) clearTimeout(t);
  },
  counts: () => counts(),
  records: () => records,
  close: async () => {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
  },
});
