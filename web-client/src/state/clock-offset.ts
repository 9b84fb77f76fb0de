/**
 * Estimates how far the browser clock is ahead of the hub's (ms), from `receivedAt` of live readings, so
 * "online = seen in the last 10 s" does not depend on the operator's PC clock being right.
 * Each sample is skew + delivery latency; the smallest is the best estimate, and the estimate creeps back up
 * slowly so one lucky sample or a clock change is forgotten over time.
 */
export class ClockOffset {
  private estimate: number | null = null;

  sample(hubTime: number, localNow = Date.now()): void {
    const s = localNow - hubTime;
    if (!Number.isFinite(s)) return;
    if (this.estimate === null || s < this.estimate) this.estimate = s;
    else this.estimate += (s - this.estimate) * 0.001;
  }

  /** The hub's clock now, as best known. */
  hubNow(localNow = Date.now()): number {
    return localNow - (this.estimate ?? 0);
  }
}
