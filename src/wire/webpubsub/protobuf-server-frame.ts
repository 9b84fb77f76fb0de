import type { AckError } from './server-frame.js';
import { DownstreamMessage } from './protobuf-schema.js';

/**
 * Builders for the frames the hub sends over the protobuf subprotocols outside the message
 * stream: each returns the bytes of one `DownstreamMessage`, for a binary WebSocket frame.
 * Data messages are built by ProtobufFrame (encoded once per message).
 */

export function protobufConnectedFrame(args: {
  connectionId: string;
  userId?: string | undefined;
  reconnectionToken?: string | undefined;
}): Buffer {
  return encode({
    systemMessage: {
      connectedMessage: {
        connectionId: args.connectionId,
        ...(args.userId === undefined ? {} : { userId: args.userId }),
        ...(args.reconnectionToken === undefined ? {} : { reconnectionToken: args.reconnectionToken }),
      },
    },
  });
}

export function protobufDisconnectedFrame(message: string): Buffer {
  return encode({ systemMessage: { disconnectedMessage: { reason: message } } });
}

export function protobufAckFrame(ackId: number, error?: AckError): Buffer {
  return encode({
    ackMessage:
      error === undefined
        ? { ackId, success: true }
        : { ackId, success: false, error: { name: error.name, message: error.message } },
  });
}

const PONG = encode({ pongMessage: {} });

export function protobufPongFrame(): Buffer {
  return PONG;
}

function encode(properties: Record<string, unknown>): Buffer {
  const bytes = DownstreamMessage.encode(DownstreamMessage.fromObject(properties)).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
