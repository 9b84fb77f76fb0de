import type { Database } from '../storage/database.js';

/** Rows deleted per statement: small enough to keep each transaction short, large enough to be quick. */
const BATCH = 5000;

/**
 * Deletes every tenant's readings received before `cutoff` (epoch ms), and the per-minute rollups
 * of minutes (by reading time) that ended before it, in batches of a few thousand rows per
 * transaction, never row by row. Returns the readings deleted; stops between batches when
 * `signal` aborts.
 */
export async function pruneReadings(database: Database, cutoff: number, signal?: AbortSignal): Promise<number> {
  const tenants = await database.withSystem(
    async (sql) => (await sql.query<{ tenant_id: string }>('select tenant_id from tenants')).rows,
  );
  let deleted = 0;
  for (const { tenant_id: tenantId } of tenants) {
    for (;;) {
      if (signal?.aborted) return deleted;
      const { rowCount } = await database.withTenant(tenantId, (sql) =>
        sql.query(
          `delete from readings where ctid = any (array(
             select ctid from readings where received_at < timestamptz 'epoch' + $1::bigint * interval '1 millisecond' limit ${BATCH}))`,
          [cutoff],
        ),
      );
      deleted += rowCount;
      if (rowCount < BATCH) break;
    }
    // Rollup minutes that ended before the cutoff.
    for (;;) {
      if (signal?.aborted) return deleted;
      const { rowCount } = await database.withTenant(tenantId, (sql) =>
        sql.query(
          `delete from reading_rollups where ctid = any (array(
             select ctid from reading_rollups where minute <= timestamptz 'epoch' + ($1::bigint - 60000) * interval '1 millisecond' limit ${BATCH}))`,
          [cutoff],
        ),
      );
      if (rowCount < BATCH) break;
    }
  }
  return deleted;
}
