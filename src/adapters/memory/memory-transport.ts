import type { Transport } from '../../realtime/transport.js';
import type { CloseReason, MessageCodec, OutboundMessage } from '../../wire/message.js';

/** An in-process client reads the message itself: its "encoding" is the message. */
export const inProcessCodec: MessageCodec<OutboundMessage> = { id: 'memory/message', encode: (message) => message };

/**
 * A bounded in-process transport buffer: a reader that `pause`s plays a slow client, whose
 * writes fill `capacity` messages before the transport counts as full.
 */
export class MemoryTransport implements Transport<OutboundMessage> {
  readonly #capacity: number;
  readonly #read: (message: OutboundMessage) => void;
  /** Written but not yet read: the transport's buffer while the reader is paused. */
  #buffered: OutboundMessage[] = [];
  #paused = false;
  #onDrain: () => void = () => undefined;

  constructor(capacity: number, read: (message: OutboundMessage) => void) {
    this.#capacity = capacity;
    this.#read = read;
  }

  get bufferedAmount(): number {
    return this.#buffered.length;
  }

  onDrain(listener: () => void): void {
    this.#onDrain = listener;
  }

  close(_reason: CloseReason): void {}

  write(message: OutboundMessage): boolean {
    if (!this.#paused) {
      this.#read(message);
      return true;
    }
    this.#buffered.push(message);
    return this.#buffered.length < this.#capacity;
  }

  pause(): void {
    this.#paused = true;
  }

  /** The reader reads what was buffered, then the connection may write again. */
  resume(): void {
    this.#paused = false;
    const buffered = this.#buffered;
    this.#buffered = [];
    for (const message of buffered) this.#read(message);
    this.#onDrain();
  }
}
