/**
 * Per-key limiter state with bounded memory. Each access sweeps a couple of entries and drops those
 * that are idle (indistinguishable from a fresh partition), so memory shrinks back once traffic stops
 * without a timer. At `maxPartitions` the least recently used partition is dropped even if busy: memory
 * must stay bounded under a flood of keys, and refusing new keys instead would lock out every new client.
 */
export class PartitionStore<S> {
  private readonly entries = new Map<string, S>();
  private sweep: Iterator<[string, S]> = this.entries.entries();

  /**
   * @param maxPartitions most partitions kept
   * @param isIdle true when the state at `now` equals that of a brand-new partition
   */
  constructor(
    private readonly maxPartitions: number,
    private readonly isIdle: (state: S, now: number) => boolean,
  ) {
    if (!Number.isInteger(maxPartitions) || maxPartitions < 1)
      throw new RangeError('maxPartitions must be a positive integer');
  }

  /** Number of partitions held. */
  get size(): number {
    return this.entries.size;
  }

  /** The state of `key`, created with `create` when absent; marks it most recently used. */
  get(key: string, now: number, create: () => S): S {
    let state = this.entries.get(key);
    if (state === undefined) {
      if (this.entries.size >= this.maxPartitions) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      state = create();
    } else {
      // Re-inserting keeps the Map in least-recently-used order.
      this.entries.delete(key);
    }
    this.entries.set(key, state);
    this.sweepSome(key, now, 2);
    return state;
  }

  private sweepSome(current: string, now: number, count: number): void {
    for (let i = 0; i < count; i++) {
      let next = this.sweep.next();
      if (next.done) {
        this.sweep = this.entries.entries();
        next = this.sweep.next();
        if (next.done) return;
      }
      const [key, state] = next.value;
      if (key !== current && this.isIdle(state, now)) this.entries.delete(key);
    }
  }
}
