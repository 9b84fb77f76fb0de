import type { Duplex } from 'node:stream';
import type { Socket } from 'socket.io';
import type { Transport } from '../../realtime/transport.js';
import type { CloseReason } from '../../wire/message.js';
import { writeCorked } from '../../host/http/tick-cork.js';
import type { SocketIoWire } from './socketio-codec.js';

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
 * A socket.io socket as a Transport. On the WebSocket transport a hub message's prebuilt frame
 * goes straight to the TCP socket (engine.io's per-packet work skipped); everything else (acks,
 * ping/pong, long polling, `hub_closed`) stays engine.io's.
 */
export class SocketIoSocket implements Transport<SocketIoWire> {
  readonly #socket: Socket;
  #unflushed = 0;
  #drainArmed = false;
  #drainSocket: Duplex | undefined = undefined;
  #onDrain: () => void = () => undefined;

  constructor(socket: Socket) {
    this.#socket = socket;
  }

  /** Bytes the TCP socket under the WebSocket transport holds (0 on long polling, whose queue is engine.io's). */
  get bufferedAmount(): number {
    const transport = (this.#socket.conn as unknown as EngineSocket).transport;
    return transport.name === 'websocket' ? (transport.socket?._socket?.writableLength ?? 0) : 0;
  }

  onDrain(listener: () => void): void {
    this.#onDrain = listener;
  }

  close(reason: CloseReason): void {
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
   * The message is always written (unless the socket is gone, when there is no one left to
   * deliver to), and false means "written, now full".
   */
  write(wire: SocketIoWire): boolean {
    if (this.#socket.disconnected) return true;
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
    if (conn.readyState !== 'open' || conn.upgrading || conn.writeBuffer.length !== 0 || this.#unflushed !== 0)
      return undefined;
    const transport = conn.transport;
    if (transport.name !== 'websocket') return undefined;
    const raw = transport.socket?._socket;
    return raw !== undefined && raw.writable ? raw : undefined;
  }

  /** Full: wait for the socket's 'drain' (one listener per socket, added on its first fill). */
  #awaitDrain(raw: Duplex): false {
    this.#drainArmed = true;
    if (this.#drainSocket !== raw) {
      this.#drainSocket = raw;
      raw.on('drain', this.#rawDrained);
    }
    return false;
  }

  readonly #rawDrained = (): void => {
    if (!this.#drainArmed) return;
    this.#drainArmed = false;
    if (!this.#socket.disconnected) this.#onDrain();
  };

  #flushed(): void {
    this.#unflushed--;
    if (this.#unflushed === 0) this.#onDrain();
  }
}
