/** Contract topic: `tenants/{tenantId}/devices/{deviceId}/telemetry`. */
export const TELEMETRY_SUBSCRIPTION = 'tenants/+/devices/+/telemetry';

export function telemetryTopic(tenantId: string, deviceId: string): string {
  return `tenants/${tenantId}/devices/${deviceId}/telemetry`;
}

/** Ids from a telemetry topic; undefined parts are left for validation to reject and count. */
export function parseTelemetryTopic(topic: string): { tenantId: string | undefined; deviceId: string | undefined } {
  const parts = topic.split('/');
  if (parts.length !== 5 || parts[0] !== 'tenants' || parts[2] !== 'devices' || parts[4] !== 'telemetry') {
    return { tenantId: undefined, deviceId: undefined };
  }
  return { tenantId: parts[1], deviceId: parts[3] };
}
