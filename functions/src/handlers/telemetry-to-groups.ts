import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import { emptyDropCounts, type DropReason } from '../../../src/wire/drop-reason.js';
import { eventToRawReading } from '../../../src/wire/eventhubs/event-to-raw-reading.js';
import type { EventTenancy } from '../../../src/wire/eventhubs/event-tenancy.js';
import { validateReading } from '../../../src/wire/validate-reading.js';
import { deviceGroup, toWireReading, type WireReading } from '../../../src/wire/reading.js';
import { describeUpstreamFailure } from '../../../src/wire/serverless/upstream-failure.js';

/** One event of a trigger batch, as the adapter takes it from the binding. */
export interface TelemetryEvent {
  /** The body as the binding hands it over: bytes, text that was not JSON, or an already-parsed JSON value. */
  readonly body: unknown;
  /** Service-assigned properties (IoT Hub: `iothub-connection-device-id`). */
  readonly systemProperties: Readonly<Record<string, unknown>>;
  /** Application properties: `deviceId` (used only when trusted), `traceparent` (a `tenant_id` here is ignored). */
  readonly properties: Readonly<Record<string, unknown>>;
  /** The event's sequence number in its partition, when the binding gave one. */
  readonly sequenceNumber: number | undefined;
}

export interface TelemetryToGroupsDeps {
  /** The Web PubSub data-plane client (Azure Web PubSub, or the hub's compatible management API). */
  readonly service: Pick<WebPubSubServiceClient, 'group'>;
  /** The device and tenant of each event (`EventHubTenant`, `EventHubDeviceTenants`, `EventHubTrustSenderDeviceId`). */
  readonly tenancy: EventTenancy;
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
  /** Readings refused or failing validation, by reason (the hub's reasons). */
  readonly dropped: Record<DropReason, number>;
  /** Valid readings that did not go out: refused or unanswered, or after such a one of the same device. */
  readonly failed: number;
}

/** A valid reading did not reach the service: the invocation fails so the runtime's retry policy redoes the batch. */
export class TelemetryDeliveryError extends Error {
  constructor(
    readonly failed: number,
    readonly sent: number,
  ) {
    super(
      sent === 0
        ? `none of ${failed} readings reached the real-time service`
        : `${failed} of ${failed + sent} readings did not reach the real-time service`,
    );
    this.name = 'TelemetryDeliveryError';
  }
}

/**
 * The Event Hubs-triggered path to device groups: validates each event with the hub's own rules and
 * sends EVERY valid reading of the batch to `device:{tenant}:{device}` through the management API, a
 * device's readings in event order. A bad event is counted and skipped; it never costs the rest of the
 * batch. There is no per-device throttle here, and `seq` is the event's partition sequence number + 1
 * (functions/README.md), as on the hub's own Event Hubs source. A device's sends stop at its first
 * failure, so what reached the service is always a prefix of each device's readings; then
 * TelemetryDeliveryError fails the invocation and the retried batch sends everything again: the
 * repeats carry a `seq` already delivered, which the hub's group send and subscribers drop.
 */
export async function handleTelemetryBatch(
  events: readonly TelemetryEvent[],
  deps: TelemetryToGroupsDeps,
): Promise<BatchOutcome> {
  const dropped = emptyDropCounts();
  const lanes = new Map<string, WireReading[]>();
  for (const event of events) {
    const { raw, refused } = eventToRawReading(event, deps.tenancy);
    if (refused !== undefined) {
      dropped[refused]++;
      continue;
    }
    const result = validateReading(raw, deps.now());
    if (!result.ok) {
      dropped[result.reason]++;
      continue;
    }
    const reading = toWireReading({ ...result.value, seq: raw.sequence ?? 0 });
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
      for (let i = 0; i < readings.length; i++) {
        try {
          await client.sendToAll(readings[i]!);
          sent++;
        } catch (err) {
          // The rest of this device waits for the retry: sending later readings now would leave a
          // gap that subscribers dropping seen seqs could never fill.
          failed += readings.length - i;
          firstFailure ??= err;
          break;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 16, queue.length) }, worker));

  const badEvents = events.length - sent - failed;
  if (badEvents > 0)
    deps.log.warn({ dropped: nonZero(dropped), received: events.length }, 'telemetry batch: readings dropped');
  if (failed > 0) {
    deps.log.warn(
      { upstream: describeUpstreamFailure(firstFailure), failed, sent },
      'telemetry batch: management api failed',
    );
    throw new TelemetryDeliveryError(failed, sent);
  }
  return { received: events.length, sent, dropped, failed };
}

function nonZero(counts: Record<DropReason, number>): Partial<Record<DropReason, number>> {
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}
