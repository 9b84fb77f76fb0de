import type { Socket } from 'socket.io';
import { TransportConnection } from '../../realtime/transport-connection.js';
import type { DeliveryRecorder } from '../../wire/delivery-recorder.js';
import { socketIoWireCodec, type SocketIoWire } from './socketio-codec.js';
import { SocketIoSocket } from './socketio-socket.js';

/**
 * A socket.io client as a hub connection: the shared connection class over a SocketIoSocket,
 * encoding with the socket.io packet codec (and its prebuilt WebSocket frame).
 */
export class SocketIoConnection extends TransportConnection<SocketIoWire> {
  readonly #onSlow: (conn: SocketIoConnection) => void;

  constructor(
    socket: Socket,
    userId: string | undefined,
    tenantId: string | undefined,
    onSlow: (conn: SocketIoConnection) => void,
    recorder?: DeliveryRecorder,
  ) {
    super({
      id: socket.id,
      transportName: 'socketio',
      userId,
      tenantId,
      codec: socketIoWireCodec,
      transport: new SocketIoSocket(socket),
      recorder,
    });
    this.#onSlow = onSlow;
  }

  /** A client too slow to keep: the socket.io transport decides how it goes (it logs and disconnects). */
  protected override overflowed(): void {
    this.#onSlow(this);
  }
}
