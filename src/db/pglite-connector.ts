import { PGlite } from '@electric-sql/pglite';
import { resolve } from 'node:path';
import type { Connector, ScriptSql } from './connector.js';
import { lockDirectory } from './directory-lock.js';

/**
 * The embedded PostgreSQL (PGlite, in process) on a data directory guarded by a lock file of our
 * own. One session: transactions run one after another.
 */
export class PgliteConnector implements Connector {
  readonly engine = 'pglite';
  readonly #db: PGlite;
  readonly #release: () => void;

  private constructor(db: PGlite, release: () => void) {
    this.#db = db;
    this.#release = release;
  }

  /** Opens (creating when new) the database in `directory`; throws DirectoryLockedError when another process has it. */
  static async open(directory: string): Promise<PgliteConnector> {
    const absolute = resolve(directory);
    const release = lockDirectory(absolute);
    try {
      const db = await PGlite.create(absolute);
      return new PgliteConnector(db, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  transaction<T>(work: (sql: ScriptSql) => Promise<T>): Promise<T> {
    return this.#db.transaction(async (tx) => {
      const sql: ScriptSql = {
        query: async <R>(text: string, params?: readonly unknown[]) => {
          const result = await tx.query<R>(text, params as unknown[] | undefined);
          return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
        },
        exec: async (script: string) => {
          await tx.exec(script);
        },
      };
      return work(sql);
    });
  }

  async close(): Promise<void> {
    try {
      if (!this.#db.closed) await this.#db.close();
    } finally {
      this.#release();
    }
  }
}
