import type { BackplaneEnvelope } from '../wire/backplane-codec.js';

/**
 * The scale-out seam (socket.io's adapter idea): a hub publishes what it sends so other nodes
 * deliver it to their connections too. Implementations hand `onMessage` handlers only other
 * nodes' envelopes; a node's own envelopes must not come back to it. Group envelopes reach only
 * the nodes watching the group (those with members of it), as socket.io's sharded adapter does,
 * so a group's traffic costs nothing on the other nodes; every other kind reaches every node.
 */
export interface Backplane {
  /**
   * `fence`: the ingest lease holding of the reading the envelope carries; a backplane shared by
   * a cluster drops the envelope when a successor holds the lease (a stale ingester publishes
   * nothing). Undefined: not fenced.
   */
  publish(envelope: BackplaneEnvelope, fence?: number): void;
  onMessage(handler: (envelope: BackplaneEnvelope) => void): void;
  /**
   * This node wants the group's envelopes (it has a member now). Resolves once envelopes other
   * nodes publish from then on reach it; never rejects (a backplane that is down watches later).
   */
  watch(group: string): Promise<void>;
  /** This node no longer wants the group's envelopes (its last member left). */
  unwatch(group: string): void;
  close(): Promise<void>;
}
