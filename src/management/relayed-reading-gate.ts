import { parseDeviceGroup } from '../protocol/reading.js';

/**
 * Drops a reading sent to its device group through the management API when its `seq` is not above
 * the last one relayed to that group: a retried batch of the `telemetryToGroups` function sends again
 * what already went out, with the same `seq` (the event's partition sequence number + 1). Only JSON
 * data shaped like the group's own reading (same tenant and device, integer `seq` ≥ 1) is gated;
 * every other send passes. Remembers `maxGroups` groups, the least recently relayed forgotten first.
 */
export class RelayedReadingGate {
  readonly #last = new Map<string, number>();

  constructor(private readonly maxGroups: number) {}

  /** False for a repeat that must not reach subscribers again. */
  admit(group: string, data: unknown): boolean {
    const seq = readingSeq(group, data);
    if (seq === undefined) return true;
    const last = this.#last.get(group);
    if (last !== undefined && seq <= last) return false;
    // Re-inserting keeps the map in least-recently-relayed order.
    this.#last.delete(group);
    this.#last.set(group, seq);
    if (this.#last.size > this.maxGroups) this.#last.delete(this.#last.keys().next().value!);
    return true;
  }
}

function readingSeq(group: string, data: unknown): number | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const { tenantId, deviceId, seq } = data as Record<string, unknown>;
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 1) return undefined;
  const device = parseDeviceGroup(group);
  if (device === null || device.tenantId !== tenantId || device.deviceId !== deviceId) return undefined;
  return seq;
}
