import type { Database } from '../storage/database.js';
import type { TenantCatalogue } from './tenant-catalogue.js';

/**
 * The tenant catalogue in the database (`tenant_stamps`, migration 0004). Read as the system
 * (`withSystem`): the catalogue is what finds a tenant's home, so it cannot sit behind that
 * tenant's row-level security. Put a `CachedTenantCatalogue` in front of it.
 */
export class DatabaseTenantCatalogue implements TenantCatalogue {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async stampOf(tenantId: string): Promise<string | undefined> {
    const { rows } = await this.#db.withSystem((sql) =>
      sql.query<{ stamp: string }>('select stamp from tenant_stamps where tenant_id = $1', [tenantId]),
    );
    return rows[0]?.stamp;
  }
}

/** What an operator runs to put (or move) a tenant on a stamp, as the tables' owner. */
export const ASSIGN_TENANT_SQL = `insert into tenant_stamps (tenant_id, stamp) values ($1, $2)
  on conflict (tenant_id) do update set stamp = excluded.stamp, updated_at = now()`;
