/**
 * A message on its way to connections, as the hub and the codecs see it: what it carries, where it
 * came from, and how a codec asks for its wire form once for every connection.
 */

/** The data of one message, as the Web PubSub protocol types it. */
export type DataType = 'json' | 'text' | 'binary' | 'protobuf';

/** Where a message came from, as subscribers see it. */
export type MessageSource = { kind: 'group'; group: string } | { kind: 'server' };

/**
 * What a codec needs of a message to put it on the wire. The hub's OutboundMessage has these
 * fields, so a codec written against this type needs nothing else of it.
 */
export interface WireMessage {
  readonly source: MessageSource;
  readonly dataType: DataType;
  /** A JSON value for `json`, a string for `text`, bytes for `binary`, an encoded google.protobuf.Any for `protobuf`. */
  readonly data: unknown;
}

/** Turns a message into a transport's wire form; `id` names the codec (one encoding per id and message). */
export interface WireCodec<T> {
  readonly id: string;
  encode(message: WireMessage): T;
}

/**
 * What a message is: a device's `reading` or any other `message` (a management or client send).
 * Set by whoever builds the message: the hub for the readings it accepts, the management API for
 * a send of exactly a Reading to that device's group (groupSendKind). Transports whose wire tells
 * them apart (socket.io) read it instead of guessing from the data, so other data never passes
 * for a reading.
 */
export type MessageKind = 'reading' | 'message';

/**
 * One message on its way to many connections. Transports ask for their wire form through
 * `encoded(codec)`, which runs the codec once per message and hands every connection the same
 * result: a broadcast is serialized once, not once per connection.
 */
export interface OutboundMessage extends WireMessage {
  /**
   * Conflation key: when a consumer is slow, a newer message with the same key replaces an
   * undelivered older one (a device group's readings). Undefined: never conflated.
   */
  readonly conflationKey: string | undefined;
  /** Undefined means `message`. */
  readonly kind?: MessageKind;
  /** W3C traceparent of the send that carries a reading: socket writes continue its trace. */
  readonly traceparent?: string | undefined;
  /** The ingest lease holding of the reading it carries (`Reading.fence`): a stale one is not published. */
  readonly fence?: number | undefined;
  encoded<T>(codec: MessageCodec<T>): T;
}

/** Turns a message into a transport's wire form. `id` must be unique per codec instance kind. */
export interface MessageCodec<T> {
  readonly id: string;
  encode(message: OutboundMessage): T;
}

/** Why the hub closes a connection; transports map it to their own close codes. */
export type CloseReason =
  | 'shutdown' // reconnect elsewhere (server restarting / draining)
  | 'kicked' // closed by the management API; do not reconnect automatically
  | 'token-expired' // reconnect with a new token
  | 'policy'; // not allowed; do not reconnect
