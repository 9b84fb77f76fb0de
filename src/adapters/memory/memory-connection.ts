import { TransportConnection } from '../../realtime/transport-connection.js';
import type { CloseReason, OutboundMessage } from '../../wire/message.js';
import { inProcessCodec, MemoryTransport } from './memory-transport.js';

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
 * in-process consumers use it. It is the socket transports' connection class over a bounded
 * in-memory transport, so it applies the same slow-consumer policy, and a reader can `pause` to
 * play a slow client: everything a transport promises can be checked here without a socket.
 */
export class MemoryConnection extends TransportConnection<OutboundMessage> {
  /** Every message the reader has read, in order. */
  readonly received: OutboundMessage[] = [];
  /** Why the connection closed; undefined while open. */
  closedWith: CloseReason | undefined = undefined;

  readonly #options: MemoryConnectionOptions;
  readonly #memory: MemoryTransport;

  constructor(options: MemoryConnectionOptions) {
    const memory = new MemoryTransport(options.capacity ?? 64, (message) => this.#read(message));
    super({
      id: options.id,
      transportName: 'memory',
      userId: options.userId,
      tenantId: options.tenantId,
      codec: inProcessCodec,
      transport: memory,
      maxUnkeyed: options.maxUnkeyed,
    });
    this.#options = options;
    this.#memory = memory;
  }

  override close(reason: CloseReason): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = reason;
    super.close(reason);
    this.#options.onClose?.(this, reason);
  }

  /** The reader stops reading: writes fill the transport buffer, then the outbox holds messages. */
  pause(): void {
    this.#memory.pause();
  }

  /** The reader reads what the transport buffered, then the outbox drains into it. */
  resume(): void {
    this.#memory.resume();
  }

  #read(message: OutboundMessage): void {
    this.received.push(message);
    this.#options.onMessage?.(message);
  }
}
