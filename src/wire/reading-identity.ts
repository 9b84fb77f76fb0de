import { hash } from 'node:crypto';
import type { RawReading } from './raw-reading.js';
import type { Reading } from './reading.js';

/** The payload field a device may set to name each reading (a string or an integer). */
export const MESSAGE_ID_FIELD = 'msgId';

/**
 * What makes a reading the same reading when it arrives again: the device's message id when the
 * payload has one (`msgId`), else the device's own timestamp and a digest of the payload. A
 * reading with neither (no `msgId`, no `ts`) has no identity: two equal readings of a device that
 * sends no time are legitimately alike, and both are kept.
 */
export function readingIdentity(raw: RawReading, reading: Reading): string | undefined {
  const id = reading.data[MESSAGE_ID_FIELD];
  if ((typeof id === 'string' && id.length > 0 && id.length <= 128) || Number.isSafeInteger(id)) {
    return `${reading.tenantId} ${reading.deviceId} m ${String(id)}`;
  }
  // `ts` defaults to the time received: a device that sent none has no time of its own.
  if (reading.ts === reading.receivedAt) return undefined;
  return `${reading.tenantId} ${reading.deviceId} t ${reading.ts} ${hash('sha1', raw.payload as Buffer, 'base64url')}`;
}
