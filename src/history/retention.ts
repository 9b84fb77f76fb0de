import type { Database } from '../db/database.js';

/** Rows deleted per statement: small enough to keep each transaction short, large enough to be quick. */
const BATCH = 5000;

/**
 * Deletes every tenant's readings received before `cutoff` (epoch ms), in batches of a few
 * thousand rows per transaction, never row by row. Returns the rows deleted; stops between
 * batches when `signal` aborts.
 */
export async function pruneReadings(database: Database, cutoff: number, signal?: AbortSignal): Promise<number> {
  const tenants = await database.withSystem(async (sql) => (await sql.query<{ tenant_id: string }>('select tenant_id from tenants')).rows);
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
  }
  return deleted;
}
