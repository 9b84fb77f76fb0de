import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import type { Clock, TimerHandle } from '../../host/clock.js';
import { ConflatingOutbox } from '../../hub/conflating-outbox.js';
import type { DeliveryRecorder } from '../../hub/delivery-recorder.js';
import type { CloseReason, HubConnection, OutboundMessage } from '../../hub/types.js';
import type { ClientAccessClaims } from '../../protocol/webpubsub/access-token.js';
import { webPubSubJsonCodec, webPubSubSimpleCodec } from '../../protocol/webpubsub/message-codec.js';
import { webPubSubProtobufCodec } from '../../protocol/webpubsub/protobuf-message-codec.js';
import type { AckError } from '../../protocol/webpubsub/server-frame.js';
import { isProtobuf, isReliable, type ProtocolKind } from '../../protocol/webpubsub/subprotocol.js';
import { AckIdWindow } from './ack-id-window.js';
import { closeFor, CloseCode } from './close-codes.js';
import { controlFramesFor, type ControlFrames } from './control-frames.js';
import { ResendBuffer } from './resend-buffer.js';
import { writeCorked } from '../tick-cork.js';
import { webSocketJsonFrameCodec, webSocketProtobufFrameCodec } from './web-socket-frame-codec.js';

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

/**
 * One Web PubSub client as the hub sees it. Messages go through a ConflatingOutbox whose
 * writability is the socket's bufferedAmount (and, for the reliable protocol, room in the resend
 * buffer). A reliable connection outlives a dropped socket for `retentionMs`: it stays in the
 * hub and its groups, new messages wait (conflated) in the outbox, and `resume` replays what
 * the client has not acknowledged before draining the rest.
 */
export class WebPubSubConnection implements HubConnection {
  readonly id: string;
  readonly userId: string | undefined;
  readonly tenantId: string | undefined;
  readonly kind: ProtocolKind;
  readonly claims: ClientAccessClaims;
  readonly reconnectionToken: string | undefined;
  /** ackIds of processed requests (Duplicate detection across reconnects). */
  readonly ackIds = new AckIdWindow();
  /** Set by any client frame or pong; the endpoint's heartbeat clears and checks it. */
  alive = true;

  readonly #options: WebPubSubConnectionOptions;
  readonly #frames: ControlFrames;
  /** Data frames are binary (protobuf) rather than text (JSON). */
  readonly #binary: boolean;
  readonly #outbox: ConflatingOutbox;
  readonly #resend: ResendBuffer | undefined;
  #socket: WebSocket | undefined = undefined;
  /** The TCP socket under #socket: prebuilt frames go straight to it. */
  #raw: Duplex | undefined = undefined;
  #nextSequenceId = 0;
  #noEcho: WeakSet<OutboundMessage> | undefined = undefined;
  #retention: TimerHandle | undefined = undefined;
  #ended = false;

  constructor(options: WebPubSubConnectionOptions) {
    this.#options = options;
    this.id = options.id;
    this.kind = options.kind;
    this.claims = options.claims;
    this.userId = options.claims.userId;
    this.tenantId = options.claims.tenantId;
    this.reconnectionToken = options.reconnectionToken;
    this.#frames = controlFramesFor(options.kind);
    this.#binary = isProtobuf(options.kind);
    this.#outbox = new ConflatingOutbox({ write: (m) => this.#write(m), maxUnkeyed: options.maxUnkeyedQueued, recorder: options.deliveries });
    this.#resend = isReliable(options.kind) ? new ResendBuffer(options.resendMaxMessages, options.resendMaxBytes) : undefined;
  }

  get socket(): WebSocket | undefined {
    return this.#socket;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Messages sent but not yet acknowledged (reliable only). */
  get unacknowledged(): number {
    return this.#resend?.count ?? 0;
  }

  /** Messages waiting in the outbox for the socket to take them. */
  get pending(): number {
    return this.#outbox.pendingCount;
  }

  /** Starts the first socket: the `connected` frame goes out before anything else. */
  open(socket: WebSocket, raw: Duplex): void {
    this.#bind(socket, raw);
    this.#sendConnected();
  }

  /**
   * A recovery request presented this session's token: the new socket replaces any old one,
   * gets `connected` again, every unacknowledged frame (the client drops what it already has
   * by sequenceId), then whatever waited in the outbox.
   */
  resume(socket: WebSocket, raw: Duplex): void {
    const old = this.#socket;
    this.#socket = undefined;
    old?.terminate();
    if (this.#retention !== undefined) this.#options.clock.clearTimeout(this.#retention);
    this.#retention = undefined;
    this.#bind(socket, raw);
    this.#sendConnected();
    for (const frame of this.#resend?.frames() ?? []) socket.send(frame, { binary: this.#binary });
    this.pump();
  }

  /** HubConnection.send: never blocks; the outbox applies the slow-consumer policy. */
  send(message: OutboundMessage): void {
    if (this.#ended) return;
    if (this.#noEcho?.has(message) === true) return;
    if (this.#outbox.offer(message) === 'overflow') {
      // Messages are already lost, so recovering the session would hide a gap: make it end.
      this.abort(CloseCode.POLICY, 'Too slow: messages could not be delivered.');
    }
  }

  drained(): Promise<void> {
    return this.#outbox.idle();
  }

  /** A frame outside the message stream: written directly, never sequenced. */
  sendControl(frame: string | Buffer): void {
    const socket = this.#socket;
    if (socket !== undefined && socket.readyState === WebSocket.OPEN) socket.send(frame, { binary: typeof frame !== 'string' });
  }

  /** Answers a request that carried an ackId, in this connection's subprotocol. */
  sendAck(ackId: number, error?: AckError): void {
    this.sendControl(this.#frames.ack(ackId, error));
  }

  sendPong(): void {
    this.sendControl(this.#frames.pong());
  }

  /** noEcho: this connection published `message` and must not receive it back. */
  excludeEcho(message: OutboundMessage): void {
    this.#noEcho ??= new WeakSet();
    this.#noEcho.add(message);
  }

  /** sequenceAck: drop what the client has, then write what was held back for room. */
  acknowledge(sequenceId: number): void {
    if (this.#resend === undefined) return;
    this.#resend.ack(sequenceId);
    this.pump();
  }

  /** The socket can take more: let the outbox write what it holds. */
  pump(): void {
    if (!this.#ended && this.#writable()) this.#outbox.drain();
  }

  /** HubConnection.close: the hub already forgot this connection. */
  close(reason: CloseReason): void {
    const { code, message } = closeFor(reason);
    this.abort(code, message);
  }

  /** Ends the session: tells the client why (subprotocol clients), closes with `code`. */
  abort(code: number, message: string): void {
    if (this.#ended) return;
    const socket = this.#socket;
    if (socket !== undefined && socket.readyState === WebSocket.OPEN) {
      if (this.kind !== 'simple') this.sendControl(this.#frames.disconnected(message));
      socket.close(code, truncateReason(message));
    }
    this.#end();
  }

  /**
   * The socket went away. A reliable session survives an abnormal drop (no close frame: network
   * trouble) for `retentionMs`; any other close ends the connection.
   */
  socketClosed(socket: WebSocket, code: number): void {
    if (socket !== this.#socket) return; // an old socket replaced by resume()
    this.#socket = undefined;
    if (this.#ended) return;
    if (isReliable(this.kind) && code === CloseCode.ABNORMAL) {
      this.#retention = this.#options.clock.setTimeout(() => this.#end(), this.#options.retentionMs);
      this.#retention.unref?.();
      return;
    }
    this.#end();
  }

  /** Cuts the socket as if the network failed; a reliable session stays recoverable. */
  terminateSocket(): boolean {
    if (this.#socket === undefined) return false;
    this.#socket.terminate();
    return true;
  }

  #bind(socket: WebSocket, raw: Duplex): void {
    this.#socket = socket;
    this.#raw = raw;
    this.alive = true;
    // ws has no 'drain' of its own; the raw socket's says the kernel took the buffered bytes.
    raw.on('drain', () => {
      if (socket === this.#socket) this.pump();
    });
  }

  #sendConnected(): void {
    if (this.kind === 'simple') return; // the service sends simple clients no system frames
    this.sendControl(this.#frames.connected({ connectionId: this.id, userId: this.userId, reconnectionToken: this.reconnectionToken }));
  }

  /**
   * The outbox's write. Never throws: it also runs from the raw socket's 'drain' listener, and
   * the hub's fan-out loop must not stop at one connection.
   */
  #write(message: OutboundMessage): boolean {
    const socket = this.#socket;
    const open = socket !== undefined && socket.readyState === WebSocket.OPEN;
    try {
      switch (this.kind) {
        case 'reliable':
        case 'reliable-protobuf': {
          // Sequence ids are assigned on the way out, after conflation, so they stay dense.
          const sequenceId = this.#nextSequenceId + 1;
          const frame =
            this.kind === 'reliable'
              ? message.encoded(webPubSubJsonCodec).withSequenceId(sequenceId)
              : message.encoded(webPubSubProtobufCodec).withSequenceId(sequenceId);
          this.#nextSequenceId = sequenceId;
          this.#resend!.push(sequenceId, frame);
          if (open) socket.send(frame, { binary: this.#binary });
          break;
        }
        case 'json':
          // A whole frame in one write, between ws's own whole-frame writes: the endpoint turns
          // compression off, so ws never holds frames back in a queue this could overtake. Frames
          // of one loop turn leave together (cork); ws's own writes go through the same stream, in order.
          if (open) writeCorked(this.#raw!, message.encoded(webSocketJsonFrameCodec));
          break;
        case 'protobuf':
          if (open) writeCorked(this.#raw!, message.encoded(webSocketProtobufFrameCodec));
          break;
        case 'simple': {
          const frame = message.encoded(webPubSubSimpleCodec);
          if (open) socket.send(frame.payload, { binary: frame.binary });
          break;
        }
      }
    } catch (err) {
      this.#options.onWriteError(this, err);
    }
    return this.#writable();
  }

  #writable(): boolean {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) return false;
    if (this.#resend?.full === true) return false;
    return socket.bufferedAmount < this.#options.maxBufferedBytes;
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#retention !== undefined) this.#options.clock.clearTimeout(this.#retention);
    this.#retention = undefined;
    this.#outbox.clear();
    this.#resend?.clear();
    this.#options.onEnd(this);
  }
}

/** Close reasons are limited to 123 bytes. */
function truncateReason(message: string): string {
  return Buffer.byteLength(message) <= 123 ? message : Buffer.from(message).subarray(0, 120).toString('utf8');
}
