/** The Web PubSub JSON subprotocol: pub/sub frames, no delivery guarantee across reconnects. */
export const JSON_SUBPROTOCOL = 'json.webpubsub.azure.v1';
/** The reliable JSON subprotocol: sequence ids, sequenceAck and connection recovery. */
export const RELIABLE_JSON_SUBPROTOCOL = 'json.reliable.webpubsub.azure.v1';

/**
 * How a connection speaks: `json` and `reliable` are the two subprotocols above; `simple` is a
 * plain WebSocket that offered no subprotocol (the service's "simple WebSocket client"): it
 * receives raw data frames and its own frames have no meaning here (there is no upstream).
 */
export type ProtocolKind = 'json' | 'reliable' | 'simple';

export type SubprotocolChoice =
  | { ok: true; kind: ProtocolKind; subprotocol: string | undefined }
  | { ok: false; offered: string[] };

/**
 * Picks the subprotocol from what the client offered, in the client's order of preference
 * (RFC 6455 §4.2.2). Offering none gives a simple client; offering only unknown ones is refused,
 * because a client that asked for a subprotocol fails the handshake when none is selected.
 */
export function selectSubprotocol(offered: Iterable<string>): SubprotocolChoice {
  const list = [...offered];
  if (list.length === 0) return { ok: true, kind: 'simple', subprotocol: undefined };
  for (const name of list) {
    if (name === RELIABLE_JSON_SUBPROTOCOL) return { ok: true, kind: 'reliable', subprotocol: name };
    if (name === JSON_SUBPROTOCOL) return { ok: true, kind: 'json', subprotocol: name };
  }
  return { ok: false, offered: list };
}
