import { BENCH } from '../harness/bench-config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';
import { startAnchorFeed } from './anchor-feed.js';

/**
 * The ingestion ceiling: one bare mqtt.js consumer (MQTT 5 on Mosquitto, Nagle off) that only
 * counts messages. Unset `mqttUrl` → an in-process subscription to an aedes broker in this process,
 * as the hub reads its own embedded broker.
 */
const args = processArgs<{ mqttUrl?: string }>();
let received = 0;
const feed = await startAnchorFeed(args.mqttUrl, `tenants/${BENCH.tenant}/devices/+/telemetry`, () => {
  received++;
});
serveParent({ count: () => ({ count: received, at: performance.now() }) }, { brokerUrl: feed.brokerUrl });
