import type { WebSocket } from 'ws';
import { DownstreamMessage, UpstreamMessage } from '../../../src/wire/webpubsub/protobuf-schema.js';
import { openRecorder } from './raw-client.js';

/** A DownstreamMessage as protobufjs's toObject gives it: uint64 as numbers, bytes as Buffers, defaults filled in, `message` = the oneof case. */
export type Downstream = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * A bare `ws` client speaking a protobuf subprotocol: every frame it sends is an UpstreamMessage
 * encoded by protobufjs from the published definitions, and every frame it receives is decoded
 * as a DownstreamMessage the same way (a frame that does not decode fails the test).
 */
export interface ProtobufClient {
  readonly ws: WebSocket;
  readonly frames: Downstream[];
  /** Whether each received frame was binary, in order. */
  readonly binary: boolean[];
  /** Each received frame's bytes, in order. */
  readonly raw: Buffer[];
  readonly closed: Promise<{ code: number; reason: string }>;
  /** Encodes `message` (UpstreamMessage properties, camelCase) and sends it in a binary frame. */
  send(message: Record<string, unknown>): void;
  next(predicate: (frame: Downstream) => boolean, timeoutMs?: number): Promise<Downstream>;
  /** The data messages received so far. */
  data(): Downstream[];
}

export function encodeUpstream(message: Record<string, unknown>): Buffer {
  return Buffer.from(UpstreamMessage.encode(UpstreamMessage.fromObject(message)).finish());
}

export function decodeDownstream(bytes: Uint8Array): Downstream {
  return DownstreamMessage.toObject(DownstreamMessage.decode(bytes), { longs: Number, oneofs: true, defaults: true });
}

export async function openProtobuf(url: string, protocol: string): Promise<ProtobufClient> {
  const binary: boolean[] = [];
  const raw: Buffer[] = [];
  const recorder = await openRecorder(url, protocol, (data, isBinary) => {
    binary.push(isBinary);
    raw.push(data);
    return decodeDownstream(data);
  });
  return {
    ...recorder,
    binary,
    raw,
    send: (message) => recorder.ws.send(encodeUpstream(message)),
    data: () => recorder.frames.filter((f) => f['message'] === 'dataMessage'),
  };
}

export const isConnected = (f: Downstream): boolean => f['systemMessage']?.['connectedMessage'] !== undefined;
export const ackOf =
  (ackId: number) =>
  (f: Downstream): boolean =>
    f['ackMessage']?.['ackId'] === ackId;
