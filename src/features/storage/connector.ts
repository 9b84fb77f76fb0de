import type { Sql } from './database.js';

/** Sql as the login role, with multi-statement scripts (migrations). */
export interface ScriptSql extends Sql {
  /** Runs a script of one or more statements without parameters. */
  exec(script: string): Promise<void>;
}

/**
 * One engine's raw transactions as the role it logged in with. Only `TenantDatabase` (which
 * narrows every unit of work to the app role) and the migration runner use it.
 */
export interface Connector {
  readonly engine: 'postgres' | 'pglite';
  /** BEGIN … COMMIT around `work`; ROLLBACK when it throws. */
  transaction<T>(work: (sql: ScriptSql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
