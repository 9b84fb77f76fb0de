import type { Socket } from 'socket.io';
import { ConflatingOutbox } from '../../hub/conflating-outbox.js';
import type { DeliveryRecorder } from '../../hub/delivery-recorder.js';
import type { CloseReason, HubConnection, OutboundMessage } from '../../hub/types.js';
import { socketIoWireCodec } from './socketio-codec.js';

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
    recorder?: DeliveryRecorder,
  ) {
    this.id = socket.id;
    this.#socket = socket;
    this.#outbox = new ConflatingOutbox({ write: (m) => this.#write(m), recorder });
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

  drained(): Promise<void> {
    return this.#outbox.idle();
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

  /**
   * The `stream.write` convention the outbox relies on: the message is always written (unless the
   * socket is gone, when there is no one left to deliver to), and false means "written, now full":
   * the outbox holds what follows until `drain()`.
   */
  #write(message: OutboundMessage): boolean {
    if (this.#socket.disconnected) return true;
    this.#unflushed++;
    const { packets, options } = message.encoded(socketIoWireCodec);
    const last = packets.length - 1;
    // One count per message: the callback rides on its last engine.io packet (binary attachments follow the event).
    packets.forEach((packet, i) => {
      if (i < last) this.#socket.conn.write(packet, options);
      else this.#socket.conn.write(packet, options, () => this.#flushed());
    });
    return this.#unflushed < HIGH_WATER;
  }

  #flushed(): void {
    this.#unflushed--;
    if (this.#unflushed === 0) this.#outbox.drain();
  }
}
