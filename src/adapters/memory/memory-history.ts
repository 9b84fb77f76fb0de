import type { Reading } from '../../wire/reading.js';
import type { HistoryReader, ReadingsAfter } from '../../realtime/history-reader.js';

export interface MemoryHistoryOptions {
  /** Newest readings kept per device. Default 1000 (`Hub:CatchUpMax`'s default). */
  readonly maxPerDevice?: number;
  /** Devices kept over all tenants; a new device beyond it is not kept. Default 100 000. */
  readonly maxDevices?: number;
}

interface DeviceHistory {
  /** Ascending by seq; at most maxPerDevice. */
  readings: Reading[];
  /** The highest seq dropped to make room: a catch-up from below it has lost readings. */
  droppedUpTo: number;
}

/**
 * Accepted readings kept in memory, the newest few per device: the catch-up's source for tests and
 * for a hub that runs without a database. Memory: under 2 × maxPerDevice readings per device (a
 * device is trimmed in halves) and maxDevices devices.
 */
export class MemoryHistory implements HistoryReader {
  /** By tenant, then device: found by the reading's own id strings, no key built per reading. */
  readonly #tenants = new Map<string, Map<string, DeviceHistory>>();
  #deviceCount = 0;
  readonly #maxPerDevice: number;
  readonly #maxDevices: number;

  constructor(options: MemoryHistoryOptions = {}) {
    this.#maxPerDevice = options.maxPerDevice ?? 1000;
    this.#maxDevices = options.maxDevices ?? 100_000;
  }

  /** Keeps an accepted reading. A reading not above its device's newest seq is ignored (seq only grows). */
  record(reading: Reading): void {
    let devices = this.#tenants.get(reading.tenantId);
    let device = devices?.get(reading.deviceId);
    if (device === undefined) {
      if (this.#deviceCount >= this.#maxDevices) return;
      if (devices === undefined) this.#tenants.set(reading.tenantId, (devices = new Map()));
      device = { readings: [], droppedUpTo: 0 };
      devices.set(reading.deviceId, device);
      this.#deviceCount++;
    }
    const newest = device.readings[device.readings.length - 1];
    if (newest !== undefined && reading.seq <= newest.seq) return;
    device.readings.push(reading);
    // Trimmed in halves, not one at a time: a full device costs an amortised O(1) per reading.
    if (device.readings.length >= this.#maxPerDevice * 2) this.#trim(device);
  }

  async readingsAfter(tenantId: string, deviceId: string, afterSeq: number, max: number): Promise<ReadingsAfter> {
    const device = this.#tenants.get(tenantId)?.get(deviceId);
    if (device === undefined) return { readings: [], truncated: false };
    if (device.readings.length > this.#maxPerDevice) this.#trim(device);
    const { readings } = device;
    const start = firstAbove(readings, afterSeq);
    const after = readings.length - start;
    const take = Math.min(after, max);
    return {
      readings: readings.slice(readings.length - take),
      truncated: after > take || afterSeq < device.droppedUpTo,
    };
  }

  #trim(device: DeviceHistory): void {
    const drop = device.readings.length - this.#maxPerDevice;
    device.droppedUpTo = device.readings[drop - 1]!.seq;
    device.readings = device.readings.slice(drop);
  }
}

/** Index of the first reading with seq > afterSeq (readings ascend by seq). */
function firstAbove(readings: readonly Reading[], afterSeq: number): number {
  let lo = 0;
  let hi = readings.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (readings[mid]!.seq <= afterSeq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
