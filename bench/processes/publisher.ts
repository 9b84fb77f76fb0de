import mqtt from 'mqtt';
import { signDeviceToken } from '../../src/host/security/device-token.js';
import { BENCH, deviceId, readingPayload } from '../harness/bench-config.js';
import { benchClock } from '../harness/clock.js';
import { PrebuiltPublisher } from '../harness/prebuilt-publish.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';

interface PublisherArgs {
  brokerUrl: string;
  devices: number;
  /** An embedded broker's device key: each device then connects on its own with its token. */
  deviceKey?: string;
  /** QoS of every PUBLISH; default 0. The broker delivers at most this QoS to a consumer. */
  qos?: 0 | 1;
}

/**
 * Devices publishing ~100-byte readings (QoS 0, MQTT 3.1.1, Nagle off) round-robin over
 * `devices` device ids, paced to the rate the orchestrator sets. On Mosquitto one connection carries
 * every device, as prebuilt packets written many per socket write (harness/prebuilt-publish.ts: the
 * load generator must outrun every consumer); an embedded broker lets a device publish only as
 * itself, so there each device has an mqtt.js connection and token of its own. A publisher that falls behind
 * (a stall, or the rate is beyond it) does not burst to catch up: the published count is the truth.
 */
const args = processArgs<PublisherArgs>();
const topics = Array.from(
  { length: args.devices },
  (_, i) => `tenants/${BENCH.tenant}/devices/${deviceId(i)}/telemetry`,
);

async function connect(
  clientId: string,
  credentials: { username?: string; password?: string } = {},
): Promise<mqtt.MqttClient> {
  const client = mqtt.connect(args.brokerUrl, {
    clientId,
    protocolVersion: 4,
    clean: true,
    reconnectPeriod: 0,
    ...credentials,
  });
  await new Promise<void>((resolve, reject) => {
    client.once('error', reject);
    client.once('connect', () => resolve());
  });
  (client.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
  return client;
}

const prefix = `bench-pub-${process.pid}-${Date.now()}`;
const { deviceKey } = args;
const prebuilt =
  deviceKey === undefined ? await PrebuiltPublisher.connect(args.brokerUrl, prefix, topics, args.qos ?? 0) : undefined;
const clients: mqtt.MqttClient[] =
  deviceKey === undefined
    ? []
    : await Promise.all(
        topics.map(async (_, i) =>
          connect(`${prefix}-${i}`, {
            username: deviceId(i),
            password: await signDeviceToken({ tenantId: BENCH.tenant, deviceId: deviceId(i), key: deviceKey }),
          }),
        ),
      );
const clientFor = (k: number): mqtt.MqttClient => clients[k % clients.length]!;

/** Unsent bytes above which the publisher waits for the broker (about 60k readings: a broker descheduled for a moment on a busy machine is not a limit). */
const MAX_BACKLOG_BYTES = 8 << 20;

let rate = 0;
let published = 0;
let base = performance.now();
let sentAtBase = 0;

function setRate(perSecond: number): void {
  rate = perSecond;
  base = performance.now();
  sentAtBase = published;
}

function tick(): void {
  if (rate > 0) {
    const due = Math.floor(((performance.now() - base) * rate) / 1000) - (published - sentAtBase);
    const burst = Math.max(1, Math.ceil(rate / 10)); // catch up at most 100 ms worth per tick
    const n = Math.min(due, burst);
    if (prebuilt !== undefined) {
      // Bytes the broker has not taken yet are not published: hold them back rather than count them.
      if (prebuilt.backlogBytes < MAX_BACKLOG_BYTES) {
        prebuilt.publish(n, benchClock());
        published += Math.max(0, n);
      }
    } else {
      for (let i = 0; i < n; i++) {
        const k = published++;
        clientFor(k % topics.length).publish(topics[k % topics.length]!, readingPayload(benchClock(), k), {
          qos: args.qos ?? 0,
        });
      }
    }
    if (due > burst) setRate(rate); // behind: forgive the backlog instead of bursting
  }
  setTimeout(tick, 1);
}
tick();

serveParent({
  rate: (payload) => {
    setRate((payload as { perSecond: number }).perSecond);
    return published;
  },
  count: () => ({ count: published, at: performance.now() }),
  /** One reading now, beside the paced rate (the density scenario sends one at a time to its big group). */
  once: () => {
    const k = published++;
    if (prebuilt !== undefined) prebuilt.publish(1, benchClock());
    else clientFor(k).publish(topics[k % topics.length]!, readingPayload(benchClock(), k), { qos: args.qos ?? 0 });
    return published;
  },
});
