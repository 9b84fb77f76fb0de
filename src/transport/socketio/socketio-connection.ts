import type { Socket } from 'socket.io';
import { ConflatingOutbox } from '../../hub/conflating-outbox.js';
import type { CloseReason, HubConnection, OutboundMessage } from '../../hub/types.js';
import { socketIoReadingWireCodec } from './socketio-codec.js';

/** Writes not yet flushed to the transport before a client counts as slow. */
const HIGH_WATER = 64;

/**
 * A socket.io socket as a hub connection. A client that reads slower than it is sent keeps only
 * the newest pending reading per device (the outbox), so its memory is bounded by the devices it
 * follows and it never slows anyone else.
 */
export class SocketIoConnection implements HubConnection {
  readonly id: string;
  readonly #socket: Socket;
  readonly #outbox: ConflatingOutbox;
  #unflushed = 0;

  constructor(
    socket: Socket,
    readonly userId: string | undefined,
    readonly tenantId: string | undefined,
    onSlow: (conn: SocketIoConnection) => void,
  ) {
    this.id = socket.id;
    this.#socket = socket;
    this.#outbox = new ConflatingOutbox({ write: (m) => this.#write(m) });
    this.#onSlow = onSlow;
  }

  readonly #onSlow: (conn: SocketIoConnection) => void;

  /** Readings replaced while this client was behind. */
  get conflated(): number {
    return this.#outbox.conflated;
  }

  /** Messages held back while the transport is full. */
  get pending(): number {
    return this.#outbox.pendingCount;
  }

  send(message: OutboundMessage): void {
    if (this.#outbox.offer(message) === 'overflow') this.#onSlow(this);
  }

  close(reason: CloseReason): void {
    this.#outbox.clear();
    if (reason === 'shutdown') {
      // Closing the transport (not the socket.io session) makes the client reconnect on its own,
      // to another instance behind the load balancer.
      this.#socket.conn.close();
    } else {
      this.#socket.emit('hub_closed', { reason });
      this.#socket.disconnect(true);
    }
  }

  #write(message: OutboundMessage): boolean {
    if (this.#unflushed >= HIGH_WATER || this.#socket.disconnected) return false;
    this.#unflushed++;
    const { packet, options } = message.encoded(socketIoReadingWireCodec);
    this.#socket.conn.write(packet, options, () => {
      this.#unflushed--;
      if (this.#unflushed === 0) this.#outbox.drain();
    });
    return true;
  }
}
