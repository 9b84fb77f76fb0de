import type { RawReading } from '../source.js';

/** Contract topic: `tenants/{tenantId}/devices/{deviceId}/telemetry`. */
export const TELEMETRY_SUBSCRIPTION = 'tenants/+/devices/+/telemetry';

export function telemetryTopic(tenantId: string, deviceId: string): string {
  return `tenants/${tenantId}/devices/${deviceId}/telemetry`;
}

const PREFIX = 'tenants/';
const MIDDLE = '/devices/';
const SUFFIX = '/telemetry';

/**
 * Ids from a telemetry topic; undefined parts are left for validation to reject and count.
 * Sliced out, not split: this runs once per reading.
 */
export function parseTelemetryTopic(topic: string): { tenantId: string | undefined; deviceId: string | undefined } {
  const { tenantId, deviceId } = telemetryReading(topic, NO_PAYLOAD);
  return { tenantId, deviceId };
}

/** The raw reading of one telemetry message: its ids from the topic (as `parseTelemetryTopic`) and its payload, in one object. */
export function telemetryReading(topic: string, payload: Uint8Array): RawReading {
  const middle = topic.startsWith(PREFIX) && topic.endsWith(SUFFIX) ? topic.indexOf(MIDDLE, PREFIX.length) : -1;
  const deviceStart = middle + MIDDLE.length;
  const deviceEnd = topic.length - SUFFIX.length;
  if (middle === -1 || deviceStart > deviceEnd) return { tenantId: undefined, deviceId: undefined, payload };
  const tenantId = topic.slice(PREFIX.length, middle);
  const deviceId = topic.slice(deviceStart, deviceEnd);
  // Exactly five segments, as the subscription's wildcards match.
  if (tenantId.includes('/') || deviceId.includes('/')) return { tenantId: undefined, deviceId: undefined, payload };
  return { tenantId, deviceId, payload };
}

const NO_PAYLOAD = new Uint8Array(0);
