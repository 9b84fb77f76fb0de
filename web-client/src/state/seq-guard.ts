/**
 * Per-device de-duplication by `seq` (contract: `seq` increases per device): a reading with seq ≤ the last
 * accepted one is a duplicate (e.g. the subscribe ack's `last` we already had) or stale, and is ignored.
 */
export class SeqGuard {
  lastSeq = Number.NEGATIVE_INFINITY;
  private lastReceivedAt = Number.NEGATIVE_INFINITY;
  private reconnected = false;

  /** Call after every new connection: the next reading may legitimately restart the sequence. */
  markReconnect(): void {
    this.reconnected = true;
  }

  accept(seq: number, receivedAt: number): boolean {
    const restarted = this.reconnected && seq < this.lastSeq && receivedAt > this.lastReceivedAt;
    // A restarted in-memory hub numbers from 1 again. A restart always drops the connection, so a lower seq
    // that the hub accepted later than our last one is only believed right after a reconnect.
    if (seq <= this.lastSeq && !restarted) return false;
    this.lastSeq = seq;
    this.lastReceivedAt = receivedAt;
    this.reconnected = false;
    return true;
  }
}
