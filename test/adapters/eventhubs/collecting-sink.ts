import type { DropReason } from '../../../src/wire/drop-reason.js';
import type { ReadingSink, SinkResult } from '../../../src/realtime/ingestion-source.js';
import type { RawReading } from '../../../src/wire/raw-reading.js';

/** A sink that keeps every raw reading and, like the real one, rejects payloads that are not JSON objects. */
export class CollectingSink implements ReadingSink {
  readonly readings: RawReading[] = [];
  readonly rejected: string[] = [];
  /** What the source refused before offering it, with the reason. */
  readonly refusals: { reason: DropReason; raw: RawReading }[] = [];

  offer(raw: RawReading): SinkResult {
    this.readings.push(raw);
    try {
      const data: unknown = JSON.parse(Buffer.from(raw.payload).toString('utf8'));
      if (data && typeof data === 'object' && !Array.isArray(data)) return { accepted: true };
    } catch {
      // fall through to the rejection
    }
    this.rejected.push('malformed');
    return { accepted: false, reason: 'malformed' };
  }

  refused(reason: DropReason, raw: RawReading): void {
    this.refusals.push({ reason, raw });
  }

  /** Parsed payloads of the accepted readings. */
  payloads<T = Record<string, unknown>>(): T[] {
    return this.readings.flatMap((r) => {
      try {
        return [JSON.parse(Buffer.from(r.payload).toString('utf8')) as T];
      } catch {
        return [];
      }
    });
  }
}
