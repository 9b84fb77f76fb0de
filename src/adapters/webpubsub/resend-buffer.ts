/** Defaults from the service's client spec: 1000 messages or 16 MB not yet acknowledged. */
export const DEFAULT_RESEND_MAX_MESSAGES = 1000;
export const DEFAULT_RESEND_MAX_BYTES = 16 * 1024 * 1024;

interface Entry {
  readonly sequenceId: number;
  readonly frame: Buffer;
}

/**
 * The sequenced frames a reliable connection sent and the client has not acknowledged yet,
 * in order: what a recovered connection receives again. `full` turns true at either bound;
 * the connection then stops writing (its outbox holds and conflates) until acks make room,
 * so the buffer exceeds a bound by at most the one frame that crossed it.
 */
export class ResendBuffer {
  readonly #entries: Entry[] = [];
  #head = 0;
  #bytes = 0;

  constructor(
    readonly maxMessages = DEFAULT_RESEND_MAX_MESSAGES,
    readonly maxBytes = DEFAULT_RESEND_MAX_BYTES,
  ) {}

  get count(): number {
    return this.#entries.length - this.#head;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get full(): boolean {
    return this.count >= this.maxMessages || this.#bytes >= this.maxBytes;
  }

  push(sequenceId: number, frame: Buffer): void {
    this.#entries.push({ sequenceId, frame });
    this.#bytes += frame.length;
  }

  /** The client received everything up to `sequenceId` (acks are cumulative). */
  ack(sequenceId: number): void {
    const entries = this.#entries;
    while (this.#head < entries.length && entries[this.#head]!.sequenceId <= sequenceId) {
      this.#bytes -= entries[this.#head]!.frame.length;
      this.#head++;
    }
    // Compact now and then instead of shifting on every ack.
    if (this.#head > 1024 && this.#head * 2 > entries.length) {
      entries.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /** Unacknowledged frames, oldest first. */
  *frames(): IterableIterator<Buffer> {
    for (let i = this.#head; i < this.#entries.length; i++) yield this.#entries[i]!.frame;
  }

  clear(): void {
    this.#entries.length = 0;
    this.#head = 0;
    this.#bytes = 0;
  }
}
