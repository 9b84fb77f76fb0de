import type { Database } from '../storage/database.js';
import type { Reading } from '../../wire/reading.js';
import type { HistoryReader } from '../../realtime/history-reader.js';
import type { HistoryWriter } from './history-writer.js';
import { READING_COLUMNS, toReading, type ReadingRow } from './reading-rows.js';

/**
 * History from the database plus what the writer accepted but has not committed yet, so a reader
 * sees no gap at the seam between stored and live. The writer's pending readings are taken
 * before the query: one committed in between is then in the query's result, and duplicates by
 * `seq` collapse.
 */
export class DatabaseHistoryReader implements HistoryReader {
  readonly #database: Database;
  readonly #writer: Pick<HistoryWriter, 'pendingAfter'> | undefined;

  constructor(database: Database, writer?: Pick<HistoryWriter, 'pendingAfter'>) {
    this.#database = database;
    this.#writer = writer;
  }

  async readingsAfter(
    tenantId: string,
    deviceId: string,
    afterSeq: number,
    max: number,
  ): Promise<{ readings: Reading[]; truncated: boolean }> {
    if (!Number.isInteger(max) || max < 0) throw new RangeError(`max must be a non-negative integer, got ${max}`);
    const pending = this.#writer?.pendingAfter(tenantId, deviceId, afterSeq) ?? [];
    const stored = await this.#database.withTenant(tenantId, async (sql) =>
      (
        await sql.query<ReadingRow>(
          `select ${READING_COLUMNS} from readings where device_id = $1 and seq > $2 order by seq desc limit $3`,
          [deviceId, afterSeq, max + 1],
        )
      ).rows.map((row) => toReading(tenantId, row)),
    );
    const bySeq = new Map<number, Reading>();
    for (const r of stored) bySeq.set(r.seq, r);
    for (const r of pending) bySeq.set(r.seq, r);
    const all = [...bySeq.values()].sort((a, b) => a.seq - b.seq);
    const truncated = all.length > max;
    return { readings: truncated ? all.slice(all.length - max) : all, truncated };
  }
}
