import { ConflatingOutbox } from './conflating-outbox.js';
import type { CloseReason, HubConnection, OutboundMessage } from './types.js';

export interface MemoryConnectionOptions {
  readonly id: string;
  readonly userId?: string | undefined;
  readonly tenantId?: string | undefined;
  /** Messages the in-memory transport buffers for a paused reader before it counts as full. Default 64. */
  readonly capacity?: number;
  /** Messages without a conflation key held while the transport is full. Default 1000 (the outbox's). */
  readonly maxUnkeyed?: number;
  /** The reader: called for each message as it is read, in order. */
  readonly onMessage?: (message: OutboundMessage) => void;
  /** Called once when the connection closes: by `close`, or with `policy` when the reader was too slow. */
  readonly onClose?: (connection: MemoryConnection, reason: CloseReason) => void;
}

/**
 * A hub connection whose client lives in this process: the hub's own tests, the bench harness and
 * in-process consumers use it. It applies the same slow-consumer policy as the socket transports
 * (a ConflatingOutbox over a bounded transport buffer), and a reader can `pause` to play a slow
 * client, so everything a transport promises can be checked here without a socket.
 */
export class MemoryConnection implements HubConnection {
  readonly id: string;
  readonly userId: string | undefined;
  readonly tenantId: string | undefined;
  /** Every message the reader has read, in order. */
  readonly received: OutboundMessage[] = [];
  /** Why the connection closed; undefined while open. */
  closedWith: CloseReason | undefined = undefined;

  readonly #options: MemoryConnectionOptions;
  readonly #capacity: number;
  readonly #outbox: ConflatingOutbox;
  /** Written but not yet read: the transport's buffer while the reader is paused. */
  #buffered: OutboundMessage[] = [];
  #paused = false;

  constructor(options: MemoryConnectionOptions) {
    this.#options = options;
    this.id = options.id;
    this.userId = options.userId;
    this.tenantId = options.tenantId;
    this.#capacity = options.capacity ?? 64;
    this.#outbox = new ConflatingOutbox({
      write: (m) => this.#write(m),
      ...(options.maxUnkeyed === undefined ? {} : { maxUnkeyed: options.maxUnkeyed }),
    });
  }

  /** Messages held back by the slow-consumer policy (not counting the transport buffer). */
  get pending(): number {
    return this.#outbox.pendingCount;
  }

  /** Messages replaced by a newer one with the same key while the reader was behind. */
  get conflated(): number {
    return this.#outbox.conflated;
  }

  send(message: OutboundMessage): void {
    if (this.closedWith !== undefined) return;
    if (this.#outbox.offer(message) === 'overflow') this.close('policy');
  }

  drained(): Promise<void> {
    return this.#outbox.idle();
  }

  close(reason: CloseReason): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = reason;
    this.#outbox.clear();
    this.#options.onClose?.(this, reason);
  }

  /** The reader stops reading: writes fill the transport buffer, then the outbox holds messages. */
  pause(): void {
    this.#paused = true;
  }

  /** The reader reads what the transport buffered, then the outbox drains into it. */
  resume(): void {
    this.#paused = false;
    const buffered = this.#buffered;
    this.#buffered = [];
    for (const message of buffered) this.#read(message);
    if (this.closedWith === undefined) this.#outbox.drain();
  }

  #write(message: OutboundMessage): boolean {
    if (!this.#paused) {
      this.#read(message);
      return true;
    }
    this.#buffered.push(message);
    return this.#buffered.length < this.#capacity;
  }

  #read(message: OutboundMessage): void {
    this.received.push(message);
    this.#options.onMessage?.(message);
  }
}
