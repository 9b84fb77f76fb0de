import { isValidId } from '../host/ids.js';
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
  /**
   * The ingest lease holding that accepted it (`RawReading.fence`), so publishing it is refused
   * once a successor holds the lease. Not serialized to subscribers.
   */
  fence?: number;
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
export type WireReading = Omit<Reading, 'traceparent' | 'fence'>;

export function toWireReading(r: Reading): WireReading {
  return { tenantId: r.tenantId, deviceId: r.deviceId, seq: r.seq, ts: r.ts, receivedAt: r.receivedAt, data: r.data };
}

export function readingToJson(r: Reading): string {
  return JSON.stringify(toWireReading(r));
}
