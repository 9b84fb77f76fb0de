import type { DataType, MessageKind } from '../../wire/message.js';
import { parseDeviceGroup } from '../../wire/reading.js';

const READING_KEYS = ['data', 'deviceId', 'receivedAt', 'seq', 'tenantId', 'ts'];

/**
 * What a management send to a group is. A JSON Reading of exactly the group's device
 * (`device:{tenantId}:{deviceId}`, the contract's six fields and nothing else) is a `reading`:
 * that is how the serverless path (the `telemetryToGroups` function) delivers readings, and Web
 * PubSub clients see such a send as a reading anyway. Everything else is a `message`, which
 * socket.io clients receive as a `message` event, never as a reading.
 */
export function groupSendKind(group: string, dataType: DataType, data: unknown): MessageKind {
  const device = parseDeviceGroup(group);
  if (device === null || dataType !== 'json' || typeof data !== 'object' || data === null || Array.isArray(data))
    return 'message';
  const r = data as Record<string, unknown>;
  const keys = Object.keys(r).sort();
  const isReading =
    keys.length === READING_KEYS.length &&
    keys.every((k, i) => k === READING_KEYS[i]) &&
    r.tenantId === device.tenantId &&
    r.deviceId === device.deviceId &&
    Number.isSafeInteger(r.seq) &&
    (r.seq as number) >= 0 &&
    Number.isFinite(r.ts) &&
    Number.isFinite(r.receivedAt) &&
    typeof r.data === 'object' &&
    r.data !== null &&
    !Array.isArray(r.data);
  return isReading ? 'reading' : 'message';
}
