import type { DataType, MessageKind, MessageSource } from './message.js';

/** An OutboundMessage as plain data, so a backplane can carry it between nodes. */
export interface MessageData {
  source: MessageSource;
  dataType: DataType;
  data: unknown;
  conflationKey: string | undefined;
  /** Absent from older nodes' envelopes: `message`. */
  kind?: MessageKind;
  /** The sending node's span of a sampled send: the receiving node links its own span to it. */
  traceparent?: string;
}

/** What one node's hub asks the other nodes' hubs to deliver to their local connections. */
export type BackplaneEnvelope =
  | { kind: 'group'; group: string; message: MessageData }
  | { kind: 'all'; message: MessageData }
  | { kind: 'user'; userId: string; message: MessageData }
  | { kind: 'connection'; connectionId: string; message: MessageData };

/** One backplane message on the wire. */
export interface BackplaneWire {
  /** The sending node: a node ignores its own envelopes (socket.io's cluster adapter does the same). */
  node: string;
  envelope: BackplaneEnvelope;
}

/**
 * The backplane's JSON text. A message's data is plain JSON except when its `dataType` is
 * `binary` or `protobuf` (an encoded `Any`), whose bytes travel as a base64 string in `data`. The hub sets `dataType`, never the
 * data, so user data is carried as it is: no value inside it (a `$b64` key, a `{ type: "Buffer" }`
 * object) can make it arrive as anything else.
 */
export function encodeBackplaneWire(wire: BackplaneWire): string {
  const { message } = wire.envelope;
  if (!isBytes(message.dataType)) return JSON.stringify(wire);
  const data = bytesOf(message.data).toString('base64');
  return JSON.stringify({ ...wire, envelope: { ...wire.envelope, message: { ...message, data } } });
}

/** The inverse of encodeBackplaneWire; throws on text that is not a backplane message. */
export function decodeBackplaneWire(text: string): BackplaneWire {
  const wire = JSON.parse(text) as BackplaneWire;
  const message = wire?.envelope?.message as MessageData | undefined;
  if (typeof wire?.node !== 'string' || typeof message !== 'object' || message === null)
    throw new Error('not a backplane message');
  if (isBytes(message.dataType))
    message.data = Buffer.from(typeof message.data === 'string' ? message.data : '', 'base64');
  return wire;
}

function bytesOf(data: unknown): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (data instanceof Uint8Array) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return Buffer.from(typeof data === 'string' ? data : '', 'utf8');
}

function isBytes(dataType: MessageData['dataType']): boolean {
  return dataType === 'binary' || dataType === 'protobuf';
}
