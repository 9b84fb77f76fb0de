import {
  protobufAckFrame,
  protobufConnectedFrame,
  protobufDisconnectedFrame,
  protobufPongFrame,
} from './protobuf-server-frame.js';
import { ackFrame, connectedFrame, disconnectedFrame, pongFrame, type AckError } from './server-frame.js';
import { isProtobuf, type ProtocolKind } from './subprotocol.js';

/**
 * The frames outside the message stream in one subprotocol's encoding: text (JSON) or bytes
 * (protobuf, sent as binary WebSocket frames).
 */
export interface ControlFrames {
  connected(args: {
    connectionId: string;
    userId?: string | undefined;
    reconnectionToken?: string | undefined;
  }): string | Buffer;
  disconnected(message: string): string | Buffer;
  ack(ackId: number, error?: AckError): string | Buffer;
  pong(): string | Buffer;
}

const JSON_FRAMES: ControlFrames = {
  connected: connectedFrame,
  disconnected: disconnectedFrame,
  ack: ackFrame,
  pong: pongFrame,
};

const PROTOBUF_FRAMES: ControlFrames = {
  connected: protobufConnectedFrame,
  disconnected: protobufDisconnectedFrame,
  ack: protobufAckFrame,
  pong: protobufPongFrame,
};

/** Simple clients get no control frames; they share the JSON set only so the type is total. */
export function controlFramesFor(kind: ProtocolKind): ControlFrames {
  return isProtobuf(kind) ? PROTOBUF_FRAMES : JSON_FRAMES;
}
