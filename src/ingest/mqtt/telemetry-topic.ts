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
  const middle = topic.startsWith(PREFIX) && topic.endsWith(SUFFIX) ? topic.indexOf(MIDDLE, PREFIX.length) : -1;
  const deviceStart = middle + MIDDLE.length;
  const deviceEnd = topic.length - SUFFIX.length;
  if (middle === -1 || deviceStart > deviceEnd) return { tenantId: undefined, deviceId: undefined };
  const tenantId = topic.slice(PREFIX.length, middle);
  const deviceId = topic.slice(deviceStart, deviceEnd);
  // Exactly five segments, as the subscription's wildcards match.
  if (tenantId.includes('/') || deviceId.includes('/')) return { tenantId: undefined, deviceId: undefined };
  return { tenantId, deviceId };
}
