import type { Duplex } from 'node:stream';
import { WebSocket } from 'ws';
import type { Transport } from '../../realtime/transport.js';
import type { CloseReason } from '../../wire/message.js';
import type { JsonFrame, SimpleFrame } from '../../wire/webpubsub/message-codec.js';
import type { ProtobufFrame } from '../../wire/webpubsub/protobuf-message-codec.js';
import { isProtobuf, type ProtocolKind } from '../../wire/webpubsub/subprotocol.js';
import { closeFor } from '../../wire/webpubsub/close-codes.js';
import { controlFramesFor, type ControlFrames } from '../../wire/webpubsub/control-frames.js';
import { writeCorked } from '../../host/http/tick-cork.js';
import type { ResendBuffer } from './resend-buffer.js';

/** A message's wire form for one subprotocol: a frame to sequence, a prebuilt WebSocket frame, or a simple payload. */
export type WebPubSubFrame = JsonFrame | ProtobufFrame | Buffer | SimpleFrame;

export interface WebPubSubSocketOptions {
  readonly kind: ProtocolKind;
  /** Reliable subprotocols only: the sequenced frames the client has not acknowledged. */
  readonly resend: ResendBuffer | undefined;
  /** Stop writing while the socket buffers more than this. */
  readonly maxBufferedBytes: number;
}

/**
 * The WebSocket of a Web PubSub session as a Transport. Writable while the socket buffers less
 * than `maxBufferedBytes` and, for the reliable subprotocols, the resend buffer has room. A
 * reliable session's socket may be replaced (`bind` again) or absent while it is recoverable.
 */
export class WebPubSubSocket implements Transport<WebPubSubFrame> {
  readonly #options: WebPubSubSocketOptions;
  readonly #frames: ControlFrames;
  /** Data frames are binary (protobuf) rather than text (JSON). */
  readonly #binary: boolean;
  #socket: WebSocket | undefined = undefined;
  /** The TCP socket under #socket: prebuilt frames go straight to it. */
  #raw: Duplex | undefined = undefined;
  #nextSequenceId = 0;
  #onDrain: () => void = () => undefined;

  constructor(options: WebPubSubSocketOptions) {
    this.#options = options;
    this.#frames = controlFramesFor(options.kind);
    this.#binary = isProtobuf(options.kind);
  }

  get socket(): WebSocket | undefined {
    return this.#socket;
  }

  get frames(): ControlFrames {
    return this.#frames;
  }

  get bufferedAmount(): number {
    return this.#socket?.bufferedAmount ?? 0;
  }

  /** Open, with room in the socket's buffer and (reliable) in the resend buffer. */
  get writable(): boolean {
    const socket = this.#socket;
    if (socket === undefined || socket.readyState !== WebSocket.OPEN) return false;
    if (this.#options.resend?.full === true) return false;
    return socket.bufferedAmount < this.#options.maxBufferedBytes;
  }

  onDrain(listener: () => void): void {
    this.#onDrain = listener;
  }

  /** Writes through `socket` from now on. */
  bind(socket: WebSocket, raw: Duplex): void {
    this.#socket = socket;
    this.#raw = raw;
    // ws has no 'drain' of its own; the raw socket's says the kernel took the buffered bytes.
    raw.on('drain', () => {
      if (socket === this.#socket) this.pump();
    });
  }

  /** Forgets the socket (it closed, or a recovery replaces it); returns it. */
  unbind(): WebSocket | undefined {
    const socket = this.#socket;
    this.#socket = undefined;
    return socket;
  }

  /** Tells the connection it may write again, when it may. */
  pump(): void {
    if (this.writable) this.#onDrain();
  }

  /** Every unacknowledged frame again, to a recovered socket (the client drops what it has by sequenceId). */
  resend(): void {
    const socket = this.#socket;
    if (socket === undefined) return;
    for (const frame of this.#options.resend?.frames() ?? []) socket.send(frame, { binary: this.#binary });
  }

  /** A frame outside the message stream: written directly, never sequenced. */
  sendControl(frame: string | Buffer): void {
    const socket = this.#socket;
    if (socket !== undefined && socket.readyState === WebSocket.OPEN)
      socket.send(frame, { binary: typeof frame !== 'string' });
  }

  close(reason: CloseReason): void {
    const { code, message } = closeFor(reason);
    this.abort(code, message);
  }

  /** Tells the client why (subprotocol clients), closes with `code`. */
  abort(code: number, message: string): void {
    const socket = this.#socket;
    if (socket !== undefined && socket.readyState === WebSocket.OPEN) {
      if (this.#options.kind !== 'simple') this.sendControl(this.#frames.disconnected(message));
      socket.close(code, truncateReason(message));
    }
  }

  /** Never throws: it also runs from the raw socket's 'drain', and the hub's fan-out must not stop at one connection. */
  write(frame: WebPubSubFrame): boolean {
    const socket = this.#socket;
    const open = socket !== undefined && socket.readyState === WebSocket.OPEN;
    switch (this.#options.kind) {
      case 'reliable':
      case 'reliable-protobuf': {
        // Sequence ids are assigned on the way out, after conflation, so they stay dense.
        const sequenceId = ++this.#nextSequenceId;
        const sequenced = (frame as JsonFrame | ProtobufFrame).withSequenceId(sequenceId);
        this.#options.resend!.push(sequenceId, sequenced);
        if (open) socket.send(sequenced, { binary: this.#binary });
        break;
      }
      case 'json':
      case 'protobuf':
        // A whole frame in one write, between ws's own whole-frame writes: the endpoint turns
        // compression off, so ws never holds frames back in a queue this could overtake. Frames
        // of one loop turn leave together (cork); ws's own writes go through the same stream, in order.
        if (open) writeCorked(this.#raw!, frame as Buffer);
        break;
      case 'simple': {
        const simple = frame as SimpleFrame;
        if (open) socket.send(simple.payload, { binary: simple.binary });
        break;
      }
    }
    return this.writable;
  }
}

/** Close reasons are limited to 123 bytes. */
function truncateReason(message: string): string {
  return Buffer.byteLength(message) <= 123 ? message : Buffer.from(message).subarray(0, 120).toString('utf8');
}
