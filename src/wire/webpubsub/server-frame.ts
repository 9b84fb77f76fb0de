import type { DataType } from '../message.js';
import { encodeData } from './encode-data.js';

/**
 * Builders for the frames the hub sends over the JSON subprotocols. Each returns the finished
 * JSON text; property order follows the service's documentation.
 */

/** Ack error names: the service's (`Forbidden`, `Duplicate`, …) plus `BadRequest` for invalid frames. */
export type AckErrorName = 'Forbidden' | 'NotFound' | 'Duplicate' | 'BadRequest' | 'InternalServerError';

export interface AckError {
  name: AckErrorName;
  message: string;
}

export function connectedFrame(args: {
  connectionId: string;
  userId?: string | undefined;
  reconnectionToken?: string | undefined;
}): string {
  return JSON.stringify({
    type: 'system',
    event: 'connected',
    userId: args.userId,
    connectionId: args.connectionId,
    reconnectionToken: args.reconnectionToken,
  });
}

export function disconnectedFrame(message: string): string {
  return JSON.stringify({ type: 'system', event: 'disconnected', message });
}

export function ackFrame(ackId: number, error?: AckError): string {
  return error === undefined
    ? `{"type":"ack","ackId":${ackId},"success":true}`
    : JSON.stringify({ type: 'ack', ackId, success: false, error: { name: error.name, message: error.message } });
}

const PONG = '{"type":"pong"}';

export function pongFrame(): string {
  return PONG;
}

/** A message from a group; `fromUserId` is set when a client published it. */
export function groupMessageFrame(group: string, dataType: DataType, data: unknown, fromUserId?: string): string {
  const from = fromUserId === undefined ? '' : `,"fromUserId":${JSON.stringify(fromUserId)}`;
  return `{"type":"message","from":"group","group":${JSON.stringify(group)},"dataType":"${dataType}","data":${encodeData(dataType, data)}${from}}`;
}

/** A message from the server (management API or the hub itself). */
export function serverMessageFrame(dataType: DataType, data: unknown): string {
  return `{"type":"message","from":"server","dataType":"${dataType}","data":${encodeData(dataType, data)}}`;
}
