/**
 * The ackIds a connection's requests were processed under, so a request resent with the same
 * ackId (after a reconnect) is answered `Duplicate` instead of running twice. Bounded: the
 * oldest ids are forgotten first.
 */
export class AckIdWindow {
  readonly #ids = new Set<number>();

  constructor(readonly capacity = 1024) {}

  has(ackId: number): boolean {
    return this.#ids.has(ackId);
  }

  add(ackId: number): void {
    if (this.#ids.has(ackId)) return;
    if (this.#ids.size >= this.capacity) {
      const oldest = this.#ids.values().next();
      if (oldest.done !== true) this.#ids.delete(oldest.value);
    }
    this.#ids.add(ackId);
  }
}
