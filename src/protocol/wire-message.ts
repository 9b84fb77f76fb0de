/** The data of one message, as the Web PubSub protocol types it. */
export type DataType = 'json' | 'text' | 'binary' | 'protobuf';

/** Where a message came from, as subscribers see it. */
export type WireSource = { kind: 'group'; group: string } | { kind: 'server' };

/**
 * What a codec needs of a message to put it on the wire. The hub's OutboundMessage has these
 * fields, so a codec written against this type serves the hub without protocol/ knowing the hub.
 */
export interface WireMessage {
  readonly source: WireSource;
  readonly dataType: DataType;
  /** A JSON value for `json`, a string for `text`, bytes for `binary`, an encoded google.protobuf.Any for `protobuf`. */
  readonly data: unknown;
}

/** Turns a message into a transport's wire form; `id` names the codec (one encoding per id and message). */
export interface WireCodec<T> {
  readonly id: string;
  encode(message: WireMessage): T;
}
