import type { Reading } from '../wire/reading.js';

/** What `readingsAfter` returns: the readings in ascending `seq`, and whether older ones were left out. */
export interface ReadingsAfter {
  readonly readings: Reading[];
  /** True when readings with `seq > afterSeq` were left out: more than `max`, or no longer kept. */
  readonly truncated: boolean;
}

/**
 * The stored readings a catch-up replays (a `subscribe` with `since`). Implemented by the history
 * store (DatabaseHistoryReader: PostgreSQL or PGlite, under the tenant's row-level security, plus
 * the writer's queue) and, with history off and in tests, by MemoryHistory. Contract suite:
 * test/realtime/history-reader.case.ts.
 */
export interface HistoryReader {
  /**
   * Readings of one device with seq > afterSeq, ascending by seq; at most max (the newest kept);
   * truncated when more existed (beyond max, or no longer kept). Another tenant's device has no
   * readings here. Every reading accepted before the call is included, even one the writer has not
   * stored yet (flush or read its queue first): a catch-up joins the live stream before it asks,
   * and a reading delivered live just before that join must not fall between the two.
   */
  readingsAfter(tenantId: string, deviceId: string, afterSeq: number, max: number): Promise<ReadingsAfter>;
}
