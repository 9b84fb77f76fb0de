import type { Duplex } from 'node:stream';
import type { Socket } from 'socket.io';
import { ConflatingOutbox } from '../../hub/conflating-outbox.js';
import type { DeliveryRecorder } from '../../hub/delivery-recorder.js';
import type { CloseReason, HubConnection, OutboundMessage } from '../../hub/types.js';
import { writeCorked } from '../tick-cork.js';
import { socketIoWireCodec } from './socketio-codec.js';

/** What the direct path reads of engine.io's socket (not in its typings). */
interface EngineSocket {
  readyState: string;
  upgrading: boolean;
  writeBuffer: unknown[];
  transport: { name: string; socket?: { _socket?: Duplex } };
}

/** Writes not yet flushed to the transport before a client counts as slow. */
const HIGH_WATER = 64;

/**
 * A socket.io socket as a hub connection. A client that reads slower than it is sent keeps only
 * the newest pending reading per device (the outbox), so its memory is bounded by the devices it
 * follows and it never slows anyone else. On the WebSocket transport a hub message's prebuilt
 * frame goes straight to the TCP socket (engine.io's per-packet work skipped); everything else
 * (acks, ping/pong, long polling, `hub_closed`) stays engine.io's.
 */
export class SocketIoConnection implements HubConnection {
  readonly id: string;
  readonly #socket: Socket;
  readonly #outbox: ConflatingOutbox;
  #unflushed = 0;
  #drainArmed = false;
  #drainSocket: Duplex | undefined = undefined;

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
    const wire = message.encoded(socketIoWireCodec);
    const raw = wire.frame === undefined ? undefined : this.#directSocket();
    if (raw !== undefined) return writeCorked(raw, wire.frame!) || this.#awaitDrain(raw);
    this.#unflushed++;
    const { packets, options } = wire;
    const last = packets.length - 1;
    // One count per message: the callback rides on its last engine.io packet (binary attachments follow the event).
    packets.forEach((packet, i) => {
      if (i < last) this.#socket.conn.write(packet, options);
      else this.#socket.conn.write(packet, options, () => this.#flushed());
    });
    return this.#unflushed < HIGH_WATER;
  }

  /**
   * The TCP socket under an open WebSocket transport with nothing queued in engine.io, or
   * undefined: then the message takes engine.io's path (long polling, an upgrade in progress,
   * engine.io's own packets or earlier messages still waiting), which keeps every packet in
   * order. A frame written here lands in the socket's stream behind all engine.io handed to ws.
   */
  #directSocket(): Duplex | undefined {
    const conn = this.#socket.conn as unknown as EngineSocket;
    if (conn.readyState !== 'open' || conn.upgrading || conn.writeBuffer.length !== 0 || this.#unflushed !== 0) return undefined;
    const transport = conn.transport;
    if (transport.name !== 'websocket') return undefined;
    const raw = transport.socket?._socket;
    return raw !== undefined && raw.writable ? raw : undefined;
  }

  /** Full: the outbox waits for the socket's 'drain' (one listener per socket, added on its first fill). */
  #awaitDrain(raw: Duplex): false {
    this.#drainArmed = true;
    if (this.#drainSocket !== raw) {
      this.#drainSocket = raw;
      raw.on('drain', this.#onDrain);
    }
    return false;
  }

  readonly #onDrain = (): void => {
    if (!this.#drainArmed) return;
    this.#drainArmed = false;
    if (!this.#socket.disconnected) this.#outbox.drain();
  };

  #flushed(): void {
    this.#unflushed--;
    if (this.#unflushed === 0) this.#outbox.drain();
  }
}
