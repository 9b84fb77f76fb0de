/** A device reading as every subscriber receives it (contract: "Reading"). */
export interface Reading {
  tenantId: string;
  deviceId: string;
  /** Increases per device, assigned when the hub accepts the reading. */
  seq: number;
  /** Device time (epoch ms); server time when the device sent none. */
  ts: number;
  /** When the hub accepted it (epoch ms). */
  receivedAt: number;
  data: Record<string, unknown>;
  /** W3C traceparent of the device's trace, when it sent one. Not serialized to subscribers. */
  traceparent?: string;
}

/** Tenant and device ids: contract "Device ingestion". */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && ID_PATTERN.test(id);
}

/** The hub group a device's readings are sent to. */
export function deviceGroup(tenantId: string, deviceId: string): string {
  return `device:${tenantId}:${deviceId}`;
}

/** Inverse of deviceGroup; null when the name is not a valid device group. */
export function parseDeviceGroup(group: string): { tenantId: string; deviceId: string } | null {
  const parts = group.split(':');
  if (parts.length !== 3 || parts[0] !== 'device') return null;
  const [, tenantId, deviceId] = parts as [string, string, string];
  return isValidId(tenantId) && isValidId(deviceId) ? { tenantId, deviceId } : null;
}

/** A reading as subscribers see it: the contract's fields only, in the contract's order. */
export type WireReading = Omit<Reading, 'traceparent'>;

export function toWireReading(r: Reading): WireReading {
  return { tenantId: r.tenantId, deviceId: r.deviceId, seq: r.seq, ts: r.ts, receivedAt: r.receivedAt, data: r.data };
}

export function readingToJson(r: Reading): string {
  return JSON.stringify(toWireReading(r));
}
