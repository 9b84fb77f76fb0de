import { serviceKey } from '../../host/container/service-key.js';
/**
 * The database seam. Two engines run the same SQL and migrations: PostgreSQL through `pg` when
 * `ConnectionStrings:postgres` is set, the embedded PGlite otherwise.
 */
export interface Sql {
  query<R = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<{ rows: R[]; rowCount: number }>;
}

export interface Database {
  readonly engine: 'postgres' | 'pglite';
  /** One unit of work for one tenant: a transaction that first sets the app role and
   *  set_config('app.tenant_id', tenantId, true); row-level security applies to every statement. */
  withTenant<T>(tenantId: string, work: (sql: Sql) => Promise<T>): Promise<T>;
  /** A transaction with no tenant (tables without tenant rows: migrations bookkeeping, retention, catalogues). */
  withSystem<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The tenant-scoped database, as the container's singleton (owned and closed by its hosted service). */
export const DATABASE = serviceKey<Database>('database');
