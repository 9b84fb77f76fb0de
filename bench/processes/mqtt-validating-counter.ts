import { Ajv } from 'ajv';
import { ID_PATTERN } from '../../src/host/ids.js';
import { BENCH } from '../harness/bench-config.js';
import { processArgs, serveParent } from '../harness/serve-parent.js';
import { startAnchorFeed } from './anchor-feed.js';

/**
 * Anchor: the ingestion consumer a user would write instead of the hub's — mqtt.js, the tenant and
 * device taken from the topic and checked, `JSON.parse`, and a compiled ajv validator of the
 * reading's shape (an object, `ts` a number or a string, at most 64 fields). It counts what passes;
 * no throttle, no seq, no fan-out. Same broker and subscription as the bare consumer.
 */
const args = processArgs<{ mqttUrl?: string }>();
const ID = ID_PATTERN;
const validate = new Ajv().compile({
  type: 'object',
  properties: { ts: { type: ['number', 'string'] } },
  maxProperties: 64,
});
let received = 0;
let invalid = 0;
const feed = await startAnchorFeed(args.mqttUrl, `tenants/${BENCH.tenant}/devices/+/telemetry`, (topic, payload) => {
  const parts = topic.split('/');
  if (!ID.test(parts[1] ?? '') || !ID.test(parts[3] ?? '')) return void invalid++;
  let reading: unknown;
  try {
    reading = JSON.parse(payload.toString('utf8'));
  } catch {
    return void invalid++;
  }
  if (!validate(reading)) return void invalid++;
  received++;
});
serveParent({ count: () => ({ count: received, invalid, at: performance.now() }) }, { brokerUrl: feed.brokerUrl });
