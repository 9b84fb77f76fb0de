import type { DataType, MessageKind, MessageSource } from './types.js';

/** An OutboundMessage as plain data, so a backplane can carry it between nodes. */
export interface MessageData {
  source: MessageSource;
  dataType: DataType;
  data: unknown;
  conflationKey: string | undefined;
  /** Absent from older nodes' envelopes: `message`. */
  kind?: MessageKind;
}

/** What one node's hub asks the other nodes' hubs to deliver to their local connections. */
export type BackplaneEnvelope =
  | { kind: 'group'; group: string; message: MessageData }
  | { kind: 'all'; message: MessageData }
  | { kind: 'user'; userId: string; message: MessageData }
  | { kind: 'connection'; connectionId: string; message: MessageData };

/**
 * The scale-out seam (socket.io's adapter idea): a hub publishes what it sends so other nodes
 * deliver it to their connections too. Implementations hand `onMessage` handlers only other
 * nodes' envelopes; a node's own envelopes must not come back to it.
 */
export interface Backplane {
  publish(envelope: BackplaneEnvelope): void;
  onMessage(handler: (envelope: BackplaneEnvelope) => void): void;
  close(): Promise<void>;
}

/** A single node: there is no one else to tell, so publishing does nothing. */
export class MemoryBackplane implements Backplane {
  publish(_envelope: BackplaneEnvelope): void {}

  onMessage(_handler: (envelope: BackplaneEnvelope) => void): void {}

  async close(): Promise<void> {}
}
