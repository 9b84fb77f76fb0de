import type { OutboundMessage } from './message.js';

/**
 * What a connection's outbox tells telemetry about deliveries, one recorder per transport. Absent
 * when nobody subscribed to the hub's telemetry: the outbox then checks one field and moves on.
 */
export interface DeliveryRecorder {
  /** A message was handed to the socket. */
  written(message: OutboundMessage): void;
  /** A pending message was replaced by a newer one of the same key (a slow consumer's reading). */
  conflated(): void;
  /** The connection fell too far behind and is closed as a slow consumer. */
  overflowed(): void;
}
