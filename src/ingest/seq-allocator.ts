/**
 * Where a device's next `seq` comes from. In memory on a single instance; in Redis for a cluster,
 * so whichever instance ingests a device continues its one sequence.
 */
export interface SeqAllocator {
  /**
   * The device's next `seq`, above `floor` (the last `seq` this instance knows for it). A promise
   * when it must ask elsewhere; the pipeline keeps readings in the order they came meanwhile, and
   * counts from `floor` itself when the promise fails.
   */
  next(tenantId: string, deviceId: string, floor: number): number | Promise<number>;
}

/** One instance counts alone: the next number after the last it knows. */
export const localSeq: SeqAllocator = {
  next: (_tenantId, _deviceId, floor) => floor + 1,
};
