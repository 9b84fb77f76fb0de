import type { OutboundMessage } from './message.js';
import { readingGroup, readingSeq } from './reading-fields.js';

/**
 * Where each device group's readings stand for one connection while its outbox holds some back
 * (a full socket, or a reliable session between its sockets): per group, the seq after which its
 * client has not been given the readings: one below the first held back, moved up as held ones
 * are written. Conflation may then drop any reading after it, and the history can replay them.
 * A group's readings reach a connection in seq order (a catch-up's gate sees to the seam), so
 * everything at or below the mark was written. Forgotten once the outbox holds nothing: memory
 * is one number per group held back since it was last empty, and none for a client that keeps up.
 */
export class HeldReadings {
  readonly #marks = new Map<string, number>();

  get size(): number {
    return this.#marks.size;
  }

  /** The outbox kept `message` back (queued, or replacing an older one of its key). */
  held(message: OutboundMessage): void {
    const group = readingGroup(message);
    if (group === undefined || this.#marks.has(group)) return;
    const seq = readingSeq(message);
    if (seq !== undefined) this.#marks.set(group, seq - 1);
  }

  /** `message` went to the transport: its group's client has everything up to it. */
  written(message: OutboundMessage): void {
    if (this.#marks.size === 0) return;
    const group = readingGroup(message);
    if (group === undefined || !this.#marks.has(group)) return;
    const seq = readingSeq(message);
    if (seq !== undefined) this.#marks.set(group, seq);
  }

  /** The seq the client has a group's readings up to, if the outbox held one of them back. */
  since(group: string): number | undefined {
    return this.#marks.get(group);
  }

  delete(group: string): void {
    this.#marks.delete(group);
  }

  clear(): void {
    if (this.#marks.size !== 0) this.#marks.clear();
  }
}
