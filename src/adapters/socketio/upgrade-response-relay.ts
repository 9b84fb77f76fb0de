import type { Duplex } from 'node:stream';

type OnceWrapper = ((...args: unknown[]) => void) & { listener?: (...args: unknown[]) => void };

/**
 * engine.io answers a WebSocket upgrade through a response stand-in that relays the TCP socket's
 * 'close' to engine.io middlewares (the hub registers none). Its listener stays on the socket for
 * the connection's life and keeps the stand-in, and through it the handshake's whole HTTP request
 * (headers, raw headers, parser state): about 1 KB per idle connection. It is the first 'close'
 * listener `engine.handleUpgrade` adds, synchronously, before ws adds its own (a named function).
 * Call with the socket's 'close' listener count from just before `handleUpgrade`.
 */
export function dropUpgradeResponseRelay(socket: Duplex, closeListenersBefore: number): void {
  const added = socket.rawListeners('close')[closeListenersBefore] as OnceWrapper | undefined;
  // Anonymous: engine.io's relay arrow, never ws's `socketOnClose` (which must stay).
  if (added !== undefined && (added.listener ?? added).name === '') socket.removeListener('close', added);
}
