/**
 * Paths whose requests are handshakes a browser cannot put an `Authorization` header on, besides
 * WebSocket upgrades and EventSource requests: socket.io's long-polling handshake and polls. The
 * query's `access_token` is a credential there, at the hub and at the gateway alike.
 */
export const HANDSHAKE_PATHS: readonly string[] = Object.freeze(['/socket.io/']);
