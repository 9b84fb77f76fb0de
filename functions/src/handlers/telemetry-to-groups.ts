import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import { emptyDropCounts, type DropReason } from '../../../src/ingest/drop-reason.js';
import { eventToRawReading } from '../../../src/ingest/eventhubs/event-to-raw-reading.js';
import { validateReading } from '../../../src/ingest/validate-reading.js';
import { deviceGroup, toWireReading, type WireReading } from '../../../src/protocol/reading.js';
import { describeUpstreamFailure } from './upstream-failure.js';

/** One event of a trigger batch, as the adapter takes it from the binding. */
export interface TelemetryEvent {
  /** The body as the binding hands it over: bytes, text that was not JSON, or an already-parsed JSON value. */
  readonly body: unknown;
  /** Service-assigned properties (IoT Hub: `iothub-connection-device-id`). */
  readonly systemProperties: Readonly<Record<string, unknown>>;
  /** Application properties: `tenant_id`, `deviceId`. */
  readonly properties: Readonly<Record<string, unknown>>;
  /** The event's sequence number in its partition, when the binding gave one. */
  readonly sequenceNumber: number | undefined;
}

export interface TelemetryToGroupsDeps {
  /** The Web PubSub data-plane client (Azure Web PubSub, or the hub's compatible management API). */
  readonly service: Pick<WebPubSubServiceClient, 'group'>;
  /** Wall clock: `receivedAt`, and `ts` when the device sent none. */
  readonly now: () => number;
  readonly log: { warn(obj: object, msg: string): void };
  /** Devices sent to at once; one device's readings always go one after another. Default 16. */
  readonly concurrency?: number;
}

export interface BatchOutcome {
  readonly received: number;
  /** Readings the management API accepted. */
  readonly sent: number;
  /** Readings that failed validation, by reason (the hub's reasons). */
  readonly dropped: Record<DropReason, number>;
  /** Valid readings the management API refused or never answered for. */
  readonly failed: number;
}

/** Every send of a non-empty batch failed: the function reports a failure so the runtime's retry policy can redo it. */
export class TelemetryDeliveryError extends Error {
  constructor(readonly failed: number) {
    super(`none of ${failed} readings reached the real-time service`);
    this.name = 'TelemetryDeliveryError';
  }
}

/**
 * The Event Hubs-triggered path to device groups: validates each event with the hub's own rules and
 * sends EVERY valid reading of the batch to `device:{tenant}:{device}` through the management API, a
 * device's readings in event order. A bad event is counted and skipped; it never costs the rest of the
 * batch. There is no per-device throttle here, and `seq` is the event's partition sequence number
 * (functions/README.md). Throws TelemetryDeliveryError only when valid readings existed and none went out.
 */
export async function handleTelemetryBatch(events: readonly TelemetryEvent[], deps: TelemetryToGroupsDeps): Promise<BatchOutcome> {
  const dropped = emptyDropCounts();
  const lanes = new Map<string, WireReading[]>();
  for (const event of events) {
    const result = validateReading(eventToRawReading(event), deps.now());
    if (!result.ok) {
      dropped[result.reason]++;
      continue;
    }
    const reading = toWireReading({ ...result.value, seq: event.sequenceNumber ?? 0 });
    const group = deviceGroup(reading.tenantId, reading.deviceId);
    const lane = lanes.get(group);
    if (lane) lane.push(reading);
    else lanes.set(group, [reading]);
  }

  let sent = 0;
  let failed = 0;
  let firstFailure: unknown;
  const queue = [...lanes];
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const [group, readings] = next;
      const client = deps.service.group(group);
      for (const reading of readings) {
        try {
          await client.sendToAll(reading);
          sent++;
        } catch (err) {
          failed++;
          firstFailure ??= err;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 16, queue.length) }, worker));

  const badEvents = events.length - sent - failed;
  if (badEvents > 0) deps.log.warn({ dropped: nonZero(dropped), received: events.length }, 'telemetry batch: readings dropped');
  if (failed > 0) {
    deps.log.warn({ upstream: describeUpstreamFailure(firstFailure), failed, sent }, 'telemetry batch: management api failed');
    if (sent === 0) throw new TelemetryDeliveryError(failed);
  }
  return { received: events.length, sent, dropped, failed };
}

function nonZero(counts: Record<DropReason, number>): Partial<Record<DropReason, number>> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}
