import type { Reading } from '../protocol/reading.js';

/** What catch-up reads: a device's readings after a `seq`. */
export interface HistoryReader {
  /** The readings with `seq > afterSeq`, ascending, at most `max` (the newest kept); `truncated` when more were left out. */
  readingsAfter(tenantId: string, deviceId: string, afterSeq: number, max: number): Promise<{ readings: Reading[]; truncated: boolean }>;
}
