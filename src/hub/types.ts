/**
 * The hub's seams. The hub knows connections and groups; it imports no transport or I/O library.
 * Transports (socket.io, ws/Web PubSub) adapt their sockets to HubConnection.
 */

import type { DataType, WireSource } from '../protocol/wire-message.js';

export type { DataType };

/**
 * What a message is: a device's `reading` or any other `message` (a management or client send).
 * Set by whoever builds the message: the hub for the readings it accepts, the management API for
 * a send of exactly a Reading to that device's group (groupSendKind). Transports whose wire tells
 * them apart (socket.io) read it instead of guessing from the data, so other data never passes
 * for a reading.
 */
export type MessageKind = 'reading' | 'message';

/** Where a message came from, as subscribers see it. */
export type MessageSource = WireSource;

/**
 * One message on its way to many connections. Transports ask for their wire form through
 * `encoded(codec)`, which runs the codec once per message and hands every connection the same
 * result: a broadcast is serialized once, not once per connection.
 */
export interface OutboundMessage {
  readonly source: MessageSource;
  readonly dataType: DataType;
  /** A JSON value for `json`, a string for `text`, bytes for `binary`, an encoded google.protobuf.Any for `protobuf`. */
  readonly data: unknown;
  /**
   * Conflation key: when a consumer is slow, a newer message with the same key replaces an
   * undelivered older one (a device group's readings). Undefined: never conflated.
   */
  readonly conflationKey: string | undefined;
  /** Undefined means `message`. */
  readonly kind?: MessageKind;
  /** W3C traceparent of the send that carries a reading: socket writes continue its trace. */
  readonly traceparent?: string | undefined;
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

/** A live client connection as the hub sees it. */
export interface HubConnection {
  readonly id: string;
  readonly userId: string | undefined;
  readonly tenantId: string | undefined;
  /** Must never block or throw; a transport applies its own backpressure policy. */
  send(message: OutboundMessage): void;
  close(reason: CloseReason): void;
  /**
   * Resolves once the connection holds nothing back for the client (at once when it holds nothing,
   * and when it closes). A catch-up waits for it before replaying, so replays never pile up on a
   * slow client. Optional: without it a catch-up replays at once.
   */
  drained?(): Promise<void>;
}
