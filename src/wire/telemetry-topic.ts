import type { RawReading } from './raw-reading.js';

/** Contract topic: `tenants/{tenantId}/devices/{deviceId}/telemetry`. */
export const TELEMETRY_SUBSCRIPTION = 'tenants/+/devices/+/telemetry';

export function telemetryTopic(tenantId: string, deviceId: string): string {
  return `tenants/${tenantId}/devices/${deviceId}/telemetry`;
}

const PREFIX = 'tenants/';
const MIDDLE = '/devices/';
const SUFFIX = '/telemetry';

/**
 * The raw reading of one telemetry message: its ids from the topic and its payload, in one object.
 * Undefined ids are left for validation to reject and count. Sliced out, not split: this runs once
 * per reading.
 */
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
