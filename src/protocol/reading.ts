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

/**
 * `ID_PATTERN`, spelled out as a loop over char codes: ingestion checks two ids per reading, and
 * the loop costs a fraction of a regular expression call (test/protocol fuzzes it against the pattern).
 */
export function isValidId(id: unknown): id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > 64) return false;
  if (!isAlphanumeric(id.charCodeAt(0))) return false;
  for (let i = 1; i < id.length; i++) {
    const c = id.charCodeAt(i);
    if (!isAlphanumeric(c) && c !== UNDERSCORE && c !== DOT && c !== DASH) return false;
  }
  return true;
}

function isAlphanumeric(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

const UNDERSCORE = 0x5f;
const DOT = 0x2e;
const DASH = 0x2d;

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
