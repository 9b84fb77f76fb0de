import pg from 'pg';
import type { Connector, ScriptSql } from '../../features/storage/connector.js';
import type { SpanStarter } from '../../host/hop-trace.js';
import { pgStatementSpans } from './pg-spans.js';

export interface PgConnectorOptions {
  connectionString: string;
  /** Connections in the pool. */
  maxConnections: number;
  /** Longest statement (ms); the server cancels it past this. */
  statementTimeoutMs: number;
  /** Longest wait for a new connection (ms), so an unreachable server fails fast instead of hanging. */
  connectTimeoutMs?: number;
  log: { warn(fields: object, message: string): void };
  /** Client spans for statements run inside a sampled trace; absent: none. */
  spans?: SpanStarter;
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
  readonly #traced: (<T>(text: string, run: () => Promise<T>) => Promise<T>) | undefined;

  constructor(options: PgConnectorOptions) {
    this.#traced = pgStatementSpans(options.spans, options.connectionString);
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
    const traced = this.#traced;
    const send = (text: string, params?: readonly unknown[]) =>
      traced === undefined
        ? client.query(text, params as unknown[] | undefined)
        : traced(text, () => client.query(text, params as unknown[] | undefined));
    const sql: ScriptSql = {
      query: async <R>(text: string, params?: readonly unknown[]) => {
        const result = await send(text, params);
        return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
      },
      exec: async (script: string) => {
        await send(script);
      },
    };
    try {
      await send('begin');
      const result = await work(sql);
      // A failed statement whose error the work caught leaves the transaction aborted; the server
      // then answers COMMIT with ROLLBACK, silently. Fail as PGlite does: nothing was committed.
      const commit = await send('commit');
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
