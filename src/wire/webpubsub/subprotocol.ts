/** The Web PubSub JSON subprotocol: pub/sub frames, no delivery guarantee across reconnects. */
export const JSON_SUBPROTOCOL = 'json.webpubsub.azure.v1';
/** The reliable JSON subprotocol: sequence ids, sequenceAck and connection recovery. */
export const RELIABLE_JSON_SUBPROTOCOL = 'json.reliable.webpubsub.azure.v1';
/** The protobuf subprotocol: the JSON one's frames as protobuf messages in binary frames. */
export const PROTOBUF_SUBPROTOCOL = 'protobuf.webpubsub.azure.v1';
/** The reliable protobuf subprotocol. */
export const RELIABLE_PROTOBUF_SUBPROTOCOL = 'protobuf.reliable.webpubsub.azure.v1';

/**
 * How a connection speaks: `json` and `reliable` are the two JSON subprotocols, `protobuf` and
 * `reliable-protobuf` the two protobuf ones; `simple` is a plain WebSocket that offered no
 * subprotocol (the service's "simple WebSocket client"): it receives raw data frames and its own
 * frames have no meaning here (there is no upstream).
 */
export type ProtocolKind = 'json' | 'reliable' | 'protobuf' | 'reliable-protobuf' | 'simple';

export type SubprotocolChoice =
  | { ok: true; kind: ProtocolKind; subprotocol: string | undefined }
  | { ok: false; offered: string[] };

const KINDS: ReadonlyMap<string, ProtocolKind> = new Map([
  [RELIABLE_JSON_SUBPROTOCOL, 'reliable'],
  [JSON_SUBPROTOCOL, 'json'],
  [RELIABLE_PROTOBUF_SUBPROTOCOL, 'reliable-protobuf'],
  [PROTOBUF_SUBPROTOCOL, 'protobuf'],
]);

/**
 * Picks the subprotocol from what the client offered, in the client's order of preference
 * (RFC 6455 §4.2.2). Offering none gives a simple client; offering only unknown ones is refused,
 * because a client that asked for a subprotocol fails the handshake when none is selected.
 */
export function selectSubprotocol(offered: Iterable<string>): SubprotocolChoice {
  const list = [...offered];
  if (list.length === 0) return { ok: true, kind: 'simple', subprotocol: undefined };
  for (const name of list) {
    const kind = KINDS.get(name);
    if (kind !== undefined) return { ok: true, kind, subprotocol: name };
  }
  return { ok: false, offered: list };
}

/** Sequence ids, sequenceAck and recovery: the two reliable subprotocols. */
export function isReliable(kind: ProtocolKind): boolean {
  return kind === 'reliable' || kind === 'reliable-protobuf';
}

/** Frames are protobuf messages in binary WebSocket frames. */
export function isProtobuf(kind: ProtocolKind): boolean {
  return kind === 'protobuf' || kind === 'reliable-protobuf';
}
