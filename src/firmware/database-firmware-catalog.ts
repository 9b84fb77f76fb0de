import type { Database } from '../db/database.js';
import type { FirmwareCatalog, FirmwareRecord } from './firmware-catalog.js';

interface Row {
  name: string;
  size: string | number;
  sha256: string;
  updated_ms: string | number;
}

const COLUMNS = `name, size, sha256, (extract(epoch from updated_at) * 1000)::bigint as updated_ms`;
const toRecord = (r: Row): FirmwareRecord => ({ name: r.name, size: Number(r.size), sha256: r.sha256, updatedAt: Number(r.updated_ms) });

/**
 * Firmware metadata in the `firmware` table (migration 0003), one unit of work per call as the
 * caller's tenant: row-level security keeps each tenant to its own rows whatever the SQL says.
 */
export class DatabaseFirmwareCatalog implements FirmwareCatalog {
  constructor(private readonly db: Database) {}

  async put(tenantId: string, record: FirmwareRecord): Promise<void> {
    await this.db.withTenant(tenantId, (sql) =>
      sql.query(
        `insert into firmware (tenant_id, name, size, sha256, updated_at) values ($1, $2, $3, $4, to_timestamp($5::double precision / 1000))
         on conflict (tenant_id, name) do update set size = excluded.size, sha256 = excluded.sha256, updated_at = excluded.updated_at`,
        [tenantId, record.name, record.size, record.sha256, record.updatedAt],
      ),
    );
  }

  get(tenantId: string, name: string): Promise<FirmwareRecord | undefined> {
    return this.db.withTenant(tenantId, async (sql) => {
      const { rows } = await sql.query<Row>(`select ${COLUMNS} from firmware where name = $1`, [name]);
      return rows[0] && toRecord(rows[0]);
    });
  }

  list(tenantId: string): Promise<FirmwareRecord[]> {
    return this.db.withTenant(tenantId, async (sql) => (await sql.query<Row>(`select ${COLUMNS} from firmware order by name collate "C"`)).rows.map(toRecord));
  }
}
