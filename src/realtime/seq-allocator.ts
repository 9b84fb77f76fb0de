/**
 * Where a device's next `seq` comes from when several instances number readings: in Redis for a
 * cluster, so whichever instance ingests a device continues its one sequence. A single instance
 * has none: the pipeline counts on from the last `seq` it knows.
 */
export interface SeqAllocator {
  /**
   * The device's next `seq`, above `floor` (the last `seq` this instance knows for it). A promise
   * when it must ask elsewhere; the pipeline keeps readings in the order they came meanwhile, and
   * counts from `floor` itself when the promise fails for any reason but `SeqRefused`.
   *
   * `fence`: the ingest lease holding the reading was read under (`RawReading.fence`). Such a
   * reading may be numbered from a block reserved for that holding; once the holding is over, the
   * call throws or rejects with `SeqRefused` and the reading gets no seq.
   */
  next(tenantId: string, deviceId: string, floor: number, fence?: number): number | Promise<number>;
}
