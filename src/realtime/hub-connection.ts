/**
 * The hub's seam to connections. The hub knows connections and groups; it imports no transport or
 * I/O library. Transports (socket.io, ws/Web PubSub) adapt their sockets to HubConnection.
 */

import type { CloseReason, OutboundMessage } from '../wire/message.js';

/** A live client connection as the hub sees it. */
export interface HubConnection {
  readonly id: string;
  /** The transport's name (`socketio`, `webpubsub`, `memory`): connections are counted by it. */
  readonly transport: string;
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
