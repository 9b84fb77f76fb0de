import type { DropReason } from '../drop-reason.js';
import type { RawReading } from '../raw-reading.js';
import { tenantOfDevice, type EventTenancy } from './event-tenancy.js';

/**
 * The parts of an event a reading comes from: the Event Hubs SDK's ReceivedEventData has them, and
 * so does what the Azure Functions Event Hubs binding hands a function (the function path shares
 * this mapping).
 */
export interface EventFields {
  body: unknown;
  properties?: Record<string, unknown> | undefined;
  systemProperties?: Record<string, unknown> | undefined;
  sequenceNumber?: number | undefined;
}

/** IoT Hub's built-in endpoint stamps the authenticated device on every message under this name. */
const IOT_HUB_DEVICE_ID = 'iothub-connection-device-id';

/** What an event becomes: its raw reading, or that raw reading with the reason it is refused before validation. */
export interface EventReading {
  readonly raw: RawReading;
  /** `untrusted_device_id`: the device id came from the sender, which the tenancy does not trust. */
  readonly refused: DropReason | undefined;
}

/**
 * Maps an event to what the sink validates (contract "Device ingestion", Event Hubs). The device is the
 * one IoT Hub authenticated (`iothub-connection-device-id`); without it, the sender's `deviceId`
 * application property only when the tenancy trusts senders, else the event is refused: a sender
 * could name any device, of any tenant. The tenant comes from the configured tenancy by device id; an
 * application property `tenant_id` the device set is ignored, so a device cannot publish into another
 * tenant's groups. Bytes pass through untouched (the source subscribes with `skipParsingBodyAsJson`);
 * AMQP value/sequence bodies, which some producers send instead of data sections, become their UTF-8
 * JSON text so the sink sees one format.
 */
export function eventToRawReading(event: EventFields, tenancy: EventTenancy): EventReading {
  const properties = event.properties ?? {};
  const authenticated = stringOrUndefined(event.systemProperties?.[IOT_HUB_DEVICE_ID]);
  const claimed = authenticated === undefined ? stringOrUndefined(properties.deviceId) : undefined;
  const refused = claimed !== undefined && !tenancy.trustSenderDeviceId ? 'untrusted_device_id' : undefined;
  const deviceId = authenticated ?? claimed;
  const raw: RawReading = {
    // A refused event names no tenant: its claimed device must not be looked up as if it were real.
    tenantId: refused === undefined ? tenantOfDevice(tenancy, deviceId) : undefined,
    deviceId,
    payload: toBytes(event.body),
  };
  // `Diagnostic-Id` is where the Azure SDKs (and IoT Hub) put the W3C traceparent.
  const traceparent = stringOrUndefined(properties.traceparent) ?? stringOrUndefined(properties['Diagnostic-Id']);
  if (traceparent !== undefined) raw.traceparent = traceparent;
  // +1: partition sequence numbers start at 0, reading seq at 1.
  if (typeof event.sequenceNumber === 'number') raw.sequence = event.sequenceNumber + 1;
  return { raw, refused };
}

function toBytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  // The Functions worker hands text bodies over as strings (JSON ones already parsed).
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body === undefined) return new Uint8Array(0);
  // A body JSON cannot represent (BigInt, cycles) is left empty for the sink to reject as malformed.
  try {
    return Buffer.from(JSON.stringify(body) ?? '', 'utf8');
  } catch {
    return new Uint8Array(0);
  }
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
