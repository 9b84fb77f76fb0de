import type { CloseReason, HubConnection, OutboundMessage } from '../../src/hub/types.js';

/** A connection that records what the hub sends it. */
export class FakeConnection implements HubConnection {
  readonly received: OutboundMessage[] = [];
  closedWith: CloseReason | undefined;

  constructor(
    readonly id: string,
    readonly tenantId: string | undefined = 'demo',
    readonly userId: string | undefined = 'user',
    private readonly onSend?: (message: OutboundMessage) => void,
  ) {}

  send(message: OutboundMessage): void {
    this.received.push(message);
    this.onSend?.(message);
  }

  close(reason: CloseReason): void {
    this.closedWith = reason;
  }
}
