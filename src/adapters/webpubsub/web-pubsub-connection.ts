import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import type { Clock, TimerHandle } from '../../host/clock.js';
import { TransportConnection, type ReplayFrom } from '../../realtime/transport-connection.js';
import type { DeliveryRecorder } from '../../wire/delivery-recorder.js';
import type { CloseReason, MessageCodec } from '../../wire/message.js';
import type { ClientAccessClaims } from '../../wire/webpubsub/access-token.js';
import { webPubSubJsonCodec, webPubSubSimpleCodec } from '../../wire/webpubsub/message-codec.js';
import { webPubSubProtobufCodec } from '../../wire/webpubsub/protobuf-message-codec.js';
import type { AckError } from '../../wire/webpubsub/server-frame.js';
import { isReliable, type ProtocolKind } from '../../wire/webpubsub/subprotocol.js';
import { AckIdWindow } from './ack-id-window.js';
import { closeFor, CloseCode } from '../../wire/webpubsub/close-codes.js';
import { ResendBuffer } from './resend-buffer.js';
import { webSocketJsonFrameCodec, webSocketProtobufFrameCodec } from '../../wire/webpubsub/web-socket-frame-codec.js';
import { WebPubSubSocket, type WebPubSubFrame } from './web-pubsub-socket.js';

export interface WebPubSubConnectionOptions {
  /** Deliveries of this transport, for telemetry. Default: none. */
  readonly deliveries?: DeliveryRecorder | undefined;
  readonly id: string;
  readonly kind: ProtocolKind;
  readonly claims: ClientAccessClaims;
  /** Reliable connections only: what a recovery request must present. */
  readonly reconnectionToken: string | undefined;
  /** Stop writing while the socket buffers more than this. */
  readonly maxBufferedBytes: number;
  readonly maxUnkeyedQueued: number;
  readonly resendMaxMessages: number;
  readonly resendMaxBytes: number;
  /** How long a reliable session outlives its dropped socket. */
  readonly retentionMs: number;
  /** Times the retention. */
  readonly clock: Clock;
  /** Called once when the connection ends for good; the endpoint forgets it and tells the hub. */
  readonly onEnd: (connection: WebPubSubConnection) => void;
  /** A message that could not be encoded (e.g. a BigInt in json data); it is dropped. */
  readonly onWriteError: (connection: WebPubSubConnection, err: unknown) => void;
}

/** The codec a subprotocol's clients read, encoded once per message for all of them. */
function codecFor(kind: ProtocolKind): MessageCodec<WebPubSubFrame> {
  switch (kind) {
    case 'reliable':
      return webPubSubJsonCodec;
    case 'reliable-protobuf':
      return webPubSubProtobufCodec;
    case 'json':
      return webSocketJsonFrameCodec;
    case 'protobuf':
      return webSocketProtobufFrameCodec;
    case 'simple':
      return webPubSubSimpleCodec;
  }
}

/**
 * One Web PubSub client session: the shared connection class over a WebPubSubSocket, whose
 * writability is the socket's bufferedAmount (and, for the reliable protocol, room in the resend
 * buffer). A reliable session outlives a dropped socket for `retentionMs`: it stays in the hub
 * and its groups, new messages wait (conflated) in the outbox, and `resume` replays what the
 * client has not acknowledged, has the history replay the readings conflation dropped, then
 * drains the rest.
 */
export class WebPubSubConnection extends TransportConnection<WebPubSubFrame> {
  readonly kind: ProtocolKind;
  readonly claims: ClientAccessClaims;
  readonly reconnectionToken: string | undefined;
  /** ackIds of processed requests (Duplicate detection across reconnects). */
  readonly ackIds = new AckIdWindow();
  /** Set by any client frame or pong; the endpoint's heartbeat clears and checks it. */
  alive = true;

  readonly #options: WebPubSubConnectionOptions;
  readonly #wire: WebPubSubSocket;
  readonly #resend: ResendBuffer | undefined;
  #retention: TimerHandle | undefined = undefined;

  constructor(options: WebPubSubConnectionOptions) {
    const resend = isReliable(options.kind)
      ? new ResendBuffer(options.resendMaxMessages, options.resendMaxBytes)
      : undefined;
    const wire = new WebPubSubSocket({ kind: options.kind, resend, maxBufferedBytes: options.maxBufferedBytes });
    super({
      id: options.id,
      transportName: 'webpubsub',
      userId: options.claims.userId,
      tenantId: options.claims.tenantId,
      codec: codecFor(options.kind),
      transport: wire,
      maxUnkeyed: options.maxUnkeyedQueued,
      recorder: options.deliveries,
      onEncodeError: (err) => options.onWriteError(this, err),
      trackHeldReadings: isReliable(options.kind),
    });
    this.#options = options;
    this.#wire = wire;
    this.#resend = resend;
    this.kind = options.kind;
    this.claims = options.claims;
    this.reconnectionToken = options.reconnectionToken;
  }

  get socket(): WebSocket | undefined {
    return this.#wire.socket;
  }

  /** Messages sent but not yet acknowledged (reliable only). */
  get unacknowledged(): number {
    return this.#resend?.count ?? 0;
  }

  /** Starts the first socket: the `connected` frame goes out before anything else. */
  open(socket: WebSocket, raw: Duplex): void {
    this.#bind(socket, raw);
    this.#sendConnected();
  }

  /**
   * A recovery request presented this session's token: the new socket replaces any old one,
   * gets `connected` again, every unacknowledged frame (the client drops what it already has
   * by sequenceId), then whatever waited in the outbox. Readings the outbox held back are handed
   * to `replay` per device group, which replays them all from the history (where the outbox kept
   * only the newest of each device); without it, or where it declines, that newest one follows.
   */
  resume(socket: WebSocket, raw: Duplex, replay?: ReplayFrom): void {
    this.#wire.unbind()?.terminate();
    if (this.#retention !== undefined) this.#options.clock.clearTimeout(this.#retention);
    this.#retention = undefined;
    this.#bind(socket, raw);
    this.#sendConnected();
    this.#wire.resend();
    if (replay !== undefined) this.replayHeld(replay);
    this.pump();
  }

  /** A frame outside the message stream: written directly, never sequenced. */
  sendControl(frame: string | Buffer): void {
    this.#wire.sendControl(frame);
  }

  /** Answers a request that carried an ackId, in this connection's subprotocol. */
  sendAck(ackId: number, error?: AckError): void {
    this.sendControl(this.#wire.frames.ack(ackId, error));
  }

  sendPong(): void {
    this.sendControl(this.#wire.frames.pong());
  }

  /** sequenceAck: drop what the client has, then write what was held back for room. */
  acknowledge(sequenceId: number): void {
    if (this.#resend === undefined) return;
    this.#resend.ack(sequenceId);
    this.pump();
  }

  /** The socket can take more: let the outbox write what it holds. */
  pump(): void {
    this.#wire.pump();
  }

  /** HubConnection.close: the hub already forgot this connection. */
  override close(reason: CloseReason): void {
    const { code, message } = closeFor(reason);
    this.abort(code, message);
  }

  /** Ends the session: tells the client why (subprotocol clients), closes with `code`. */
  abort(code: number, message: string): void {
    if (this.ended) return;
    this.#wire.abort(code, message);
    this.#end();
  }

  /** Messages are already lost, so recovering the session would hide a gap: make it end. */
  protected override overflowed(): void {
    this.abort(CloseCode.POLICY, 'Too slow: messages could not be delivered.');
  }

  /**
   * The socket went away. A reliable session survives an abnormal drop (no close frame: network
   * trouble) for `retentionMs`; any other close ends the connection.
   */
  socketClosed(socket: WebSocket, code: number): void {
    if (socket !== this.#wire.socket) return; // an old socket replaced by resume()
    this.#wire.unbind();
    if (this.ended) return;
    if (isReliable(this.kind) && code === CloseCode.ABNORMAL) {
      this.#retention = this.#options.clock.setTimeout(() => this.#end(), this.#options.retentionMs);
      this.#retention.unref?.();
      return;
    }
    this.#end();
  }

  /** Cuts the socket as if the network failed; a reliable session stays recoverable. */
  terminateSocket(): boolean {
    const socket = this.#wire.socket;
    if (socket === undefined) return false;
    socket.terminate();
    return true;
  }

  #bind(socket: WebSocket, raw: Duplex): void {
    this.#wire.bind(socket, raw);
    this.alive = true;
  }

  #sendConnected(): void {
    if (this.kind === 'simple') return; // the service sends simple clients no system frames
    this.sendControl(
      this.#wire.frames.connected({
        connectionId: this.id,
        userId: this.userId,
        reconnectionToken: this.reconnectionToken,
      }),
    );
  }

  #end(): void {
    if (this.ended) return;
    if (this.#retention !== undefined) this.#options.clock.clearTimeout(this.#retention);
    this.#retention = undefined;
    this.endOutbox();
    this.#resend?.clear();
    this.#options.onEnd(this);
  }
}
