import type { SeqAllocator } from '../../realtime/seq-allocator.js';

/**
 * The counters the memory allocators of one process share, as a cluster shares Redis: one map per
 * cluster, the last `seq` handed out per tenant and device.
 */
export type MemorySeqCounters = Map<string, number>;

/**
 * Each device's `seq` from counters shared in memory: what the Redis allocator does between
 * processes, for instances in one process (tests). Never at or below the caller's floor, so a
 * counter that lags what was handed out moves up instead of repeating it. Answers asynchronously,
 * in the order asked, as over a wire.
 */
export class MemorySeqAllocator implements SeqAllocator {
  readonly #counters: MemorySeqCounters;

  constructor(counters: MemorySeqCounters = new Map()) {
    this.#counters = counters;
  }

  async next(tenantId: string, deviceId: string, floor: number): Promise<number> {
    // Ids never contain a space (host/ids.ts), so the key cannot mix up two devices.
    const key = `${tenantId} ${deviceId}`;
    const n = Math.max((this.#counters.get(key) ?? 0) + 1, floor + 1);
    this.#counters.set(key, n);
    return n;
  }
}
