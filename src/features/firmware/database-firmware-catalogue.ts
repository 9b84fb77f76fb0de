import type { Database } from '../storage/database.js';
import type { FirmwareCatalogue, FirmwareRecord, PutOptions } from './firmware-catalogue.js';
import { checkQuota } from './firmware-quota.js';

interface Row {
  name: string;
  size: string | number;
  sha256: string;
  updated_ms: string | number;
}

const COLUMNS = `name, size, sha256, (extract(epoch from updated_at) * 1000)::bigint as updated_ms`;
const toRecord = (r: Row): FirmwareRecord => ({
  name: r.name,
  size: Number(r.size),
  sha256: r.sha256,
  updatedAt: Number(r.updated_ms),
});

/** The first key of the transaction-level advisory lock that runs one tenant's firmware puts one at a time. */
const PUT_LOCK_CLASS = 7_236_150;

/**
 * Firmware metadata in the `firmware` table (migration 0003), one unit of work per call as the
 * caller's tenant: row-level security keeps each tenant to its own rows whatever the SQL says.
 */
export class DatabaseFirmwareCatalogue implements FirmwareCatalogue {
  constructor(private readonly db: Database) {}

  async put(tenantId: string, record: FirmwareRecord, { quota, swap }: PutOptions = {}): Promise<void> {
    await this.db.withTenant(tenantId, async (sql) => {
      // Held to the commit, on every instance sharing the database: the totals read below stay true
      // until this put's row is written. A row lock would not do: a new tenant has no row to lock.
      await sql.query(`select pg_advisory_xact_lock($1, hashtext($2))`, [PUT_LOCK_CLASS, tenantId]);
      if (quota !== undefined) {
        const { rows } = await sql.query<{ bytes: string | number; files: string | number }>(
          `select coalesce(sum(size) filter (where name <> $1), 0) as bytes, count(*) filter (where name <> $1) as files from firmware`,
          [record.name],
        );
        checkQuota(quota, Number(rows[0]!.bytes) + record.size, Number(rows[0]!.files) + 1);
      }
      await swap?.();
      await sql.query(
        `insert into firmware (tenant_id, name, size, sha256, updated_at) values ($1, $2, $3, $4, to_timestamp($5::double precision / 1000))
         on conflict (tenant_id, name) do update set size = excluded.size, sha256 = excluded.sha256, updated_at = excluded.updated_at`,
        [tenantId, record.name, record.size, record.sha256, record.updatedAt],
      );
    });
  }

  get(tenantId: string, name: string): Promise<FirmwareRecord | undefined> {
    return this.db.withTenant(tenantId, async (sql) => {
      const { rows } = await sql.query<Row>(`select ${COLUMNS} from firmware where name = $1`, [name]);
      return rows[0] && toRecord(rows[0]);
    });
  }

  list(tenantId: string): Promise<FirmwareRecord[]> {
    return this.db.withTenant(tenantId, async (sql) =>
      (await sql.query<Row>(`select ${COLUMNS} from firmware order by name collate "C"`)).rows.map(toRecord),
    );
  }
}
