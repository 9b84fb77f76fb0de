import type { CloseReason } from '../message.js';

/**
 * WebSocket close codes and what they tell a client. The official `@azure/web-pubsub-client`
 * (1.0.x) distinguishes exactly one code: after 1008 it never tries to recover the session and
 * starts a new connection; after any other code a reliable client first tries to recover the
 * session for 30 s (awps_connection_id + awps_reconnection_token), and a non-reliable client
 * reconnects. So: 1008 = "this session is gone, connect anew"; everything else = "recover if
 * you can". Other clients read 1012 as "restart: reconnect, maybe elsewhere".
 */
export const CloseCode = {
  NORMAL: 1000,
  GOING_AWAY: 1001,
  /** Received when the peer vanished without a close frame: the only drop a session survives. */
  ABNORMAL: 1006,
  /** The client sent something that is not a frame of its subprotocol (or not UTF-8). */
  INVALID_PAYLOAD: 1007,
  /** Session removed (kicked, not allowed, too slow, unknown on recovery): connect anew. */
  POLICY: 1008,
  /** The hub is restarting or draining: reconnect, possibly to another instance. */
  SERVICE_RESTART: 1012,
} as const;

export interface CloseInstruction {
  readonly code: number;
  /** Sent in the `disconnected` frame and as the close reason (kept under 123 bytes). */
  readonly message: string;
}

const BY_REASON: Record<CloseReason, CloseInstruction> = {
  shutdown: { code: CloseCode.SERVICE_RESTART, message: 'The hub is restarting; reconnect.' },
  kicked: { code: CloseCode.POLICY, message: 'The connection was closed by the server.' },
  'token-expired': { code: CloseCode.POLICY, message: 'The access token expired; reconnect with a new one.' },
  policy: { code: CloseCode.POLICY, message: 'The connection is not allowed.' },
};

export function closeFor(reason: CloseReason): CloseInstruction {
  return BY_REASON[reason];
}
