import pg from 'pg';
import type { Connector, ScriptSql } from './connector.js';

export interface PgConnectorOptions {
  connectionString: string;
  /** Connections in the pool. */
  maxConnections: number;
  /** Longest statement (ms); the server cancels it past this. */
  statementTimeoutMs: number;
  /** Longest wait for a new connection (ms), so an unreachable server fails fast instead of hanging. */
  connectTimeoutMs?: number;
  log: { warn(fields: object, message: string): void };
}

/** COMMIT found the transaction aborted by an earlier failed statement: nothing was committed. */
export class TransactionRolledBackError extends Error {
  constructor() {
    super('the transaction was rolled back instead of committed (a statement in it failed)');
    this.name = 'TransactionRolledBackError';
  }
}

/**
 * PostgreSQL through a `pg` pool. A connection that breaks (server restart, network cut,
 * terminated backend) is dropped from the pool and the next unit of work opens a new one, so
 * the hub reconnects by itself; the unit that was running when it broke fails.
 */
export class PgConnector implements Connector {
  readonly engine = 'postgres';
  readonly #pool: pg.Pool;

  constructor(options: PgConnectorOptions) {
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections,
      statement_timeout: options.statementTimeoutMs,
      // A unit of work that hangs between statements must not hold row locks for ever.
      idle_in_transaction_session_timeout: Math.max(options.statementTimeoutMs, 1000),
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
      application_name: 'telemetry-hub',
    });
    // An idle connection's error would otherwise be an unhandled 'error' event: the pool
    // already discards that client; say so and carry on.
    this.#pool.on('error', (err) => options.log.warn({ err }, 'idle database connection lost'));
  }

  async transaction<T>(work: (sql: ScriptSql) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken: Error | undefined;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    const sql: ScriptSql = {
      query: async <R>(text: string, params?: readonly unknown[]) => {
        const result = await client.query(text, params as unknown[] | undefined);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
      },
      exec: async (script: string) => {
        await client.query(script);
      },
    };
    try {
      await client.query('begin');
      const result = await work(sql);
      // A failed statement whose error the work caught leaves the transaction aborted; the server
      // then answers COMMIT with ROLLBACK, silently. Fail as PGlite does: nothing was committed.
      const commit = await client.query('commit');
      if (commit.command === 'ROLLBACK') throw new TransactionRolledBackError();
      return result;
    } catch (err) {
      broken ??= await client.query('rollback').then(
        () => undefined,
        (rollbackError: Error) => rollbackError,
      );
      throw err;
    } finally {
      client.off('error', onError);
      // A client whose connection failed is destroyed rather than handed to the next unit of work.
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
