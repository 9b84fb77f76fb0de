/**
 * Drops a reading sent to its device group through the management API when its `seq` is not above
 * the last one relayed to that group: a retried batch of the `telemetryToGroups` function sends again
 * what already went out, with the same `seq` (the event's partition sequence number + 1). The caller
 * decides what is a reading (`groupSendKind`); every other send passes ungated. Remembers
 * `maxGroups` groups, the least recently relayed forgotten first.
 */
export class RelayedReadingGate {
  readonly #last = new Map<string, number>();

  constructor(private readonly maxGroups: number) {}

  /** False for a repeat that must not reach subscribers again. */
  admit(group: string, seq: number): boolean {
    const last = this.#last.get(group);
    if (last !== undefined && seq <= last) return false;
    // Re-inserting keeps the map in least-recently-relayed order.
    this.#last.delete(group);
    this.#last.set(group, seq);
    if (this.#last.size > this.maxGroups) this.#last.delete(this.#last.keys().next().value!);
    return true;
  }
}
