import type { Connector } from './connector.js';
import type { Database, Sql } from './database.js';

/**
 * Both engines take the same path: every unit of work is a transaction that first becomes the
 * `app` role (`SET LOCAL ROLE app`, spelled as set_config so the tenant rides in the same round
 * trip as a bound parameter) and sets `app.tenant_id` transaction-locally. Why one path:
 * PGlite's only session is a superuser, who bypasses row-level security, so it has to switch
 * role; doing the same on the server means RLS holds there even when the login role is
 * misconfigured as an owner or superuser, and the login role needs no table grants at all, only
 * membership in `app`. Both settings end with the transaction, so nothing leaks to the next
 * unit of work on a pooled connection.
 */
export class TenantDatabase implements Database {
  readonly #connector: Connector;

  constructor(connector: Connector) {
    this.#connector = connector;
  }

  get engine(): 'postgres' | 'pglite' {
    return this.#connector.engine;
  }

  withTenant<T>(tenantId: string, work: (sql: Sql) => Promise<T>): Promise<T> {
    if (typeof tenantId !== 'string' || tenantId.length === 0) {
      return Promise.reject(new Error('withTenant needs a tenant id'));
    }
    return this.#unit(tenantId, work);
  }

  withSystem<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    // An empty tenant matches no row: tenant tables look empty, as they should here.
    return this.#unit('', work);
  }

  close(): Promise<void> {
    return this.#connector.close();
  }

  #unit<T>(tenantId: string, work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.#connector.transaction(async (raw) => {
      await raw.query(`select set_config('role', 'app', true), set_config('app.tenant_id', $1, true)`, [tenantId]);
      // Only `query` is handed on: a multi-statement script is for migrations, not units of work.
      const sql: Sql = { query: (text, params) => raw.query(text, params) };
      return work(sql);
    });
  }
}
