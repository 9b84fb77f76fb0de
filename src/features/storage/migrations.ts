import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../host/package-root.js';
import type { Connector } from './connector.js';

/** One versioned SQL file, `NNNN_name.sql`. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Any fixed number: every runner of every hub takes the same transaction-level advisory lock. */
const LOCK_KEY = 7_236_150_001;

/** The migrations in `directory`, by version. A stray name or a repeated version is an error, not a skip. */
export function loadMigrations(directory: string): Migration[] {
  const migrations: Migration[] = [];
  for (const file of readdirSync(directory).sort()) {
    if (!file.endsWith('.sql')) continue;
    const match = FILE.exec(file);
    if (!match) throw new Error(`migration file '${file}' is not named NNNN_name.sql`);
    const version = Number(match[1]);
    if (migrations.some((m) => m.version === version)) throw new Error(`migration version ${match[1]} appears twice`);
    migrations.push({ version, name: match[2]!, sql: readFileSync(join(directory, file), 'utf8') });
  }
  return migrations;
}

/** The shipped migrations: `migrations/` at the package root. */
export function defaultMigrationsDirectory(): string {
  return join(packageRoot(), 'migrations');
}

const BOOKKEEPING = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Applies the missing migrations in one transaction under an advisory lock, so two runners never
 * collide: the second waits, then finds nothing left to do. A failing migration rolls back every
 * one of this run. Returns the versions applied.
 */
export async function migrate(connector: Connector, migrations: readonly Migration[]): Promise<number[]> {
  return connector.transaction(async (sql) => {
    await sql.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
    await sql.exec(BOOKKEEPING);
    const done = new Set(
      (await sql.query<{ version: number }>('select version from schema_migrations')).rows.map((r) =>
        Number(r.version),
      ),
    );
    const applied: number[] = [];
    for (const migration of migrations) {
      if (done.has(migration.version)) continue;
      try {
        await sql.exec(migration.sql);
      } catch (err) {
        throw new Error(`migration ${pad(migration.version)}_${migration.name} failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
      await sql.query('insert into schema_migrations (version, name) values ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      applied.push(migration.version);
    }
    return applied;
  });
}

/** The shipped migrations the database has not applied yet (all of them when it has none). */
export async function missingMigrations(connector: Connector, migrations: readonly Migration[]): Promise<Migration[]> {
  const done = await connector.transaction(async (sql) => {
    const exists = await sql.query<{ t: string | null }>(`select to_regclass('schema_migrations')::text as t`);
    if (exists.rows[0]?.t == null) return new Set<number>();
    return new Set(
      (await sql.query<{ version: number }>('select version from schema_migrations')).rows.map((r) =>
        Number(r.version),
      ),
    );
  });
  return migrations.filter((m) => !done.has(m.version));
}

export const pad = (version: number): string => String(version).padStart(4, '0');
