import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgConnector } from '../../src/adapters/postgres/pg-connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../src/features/storage/migrations.js';
import { requireService } from './services.js';

/** The test server (trust authentication); each test file makes a database of its own on it. */
const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  /** Connection string of the new, empty database. */
  readonly url: string;
  readonly name: string;
  /** Drops it, closing whatever is still connected. */
  drop(): Promise<void>;
}

/** Is PostgreSQL on 127.0.0.1:5432? Skips with a message without it; fails under CI=true. */
export function requirePostgres(): Promise<boolean> {
  return requireService('PostgreSQL', 5432);
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A new empty database on the test server, named uniquely for this run. */
export async function createTestDatabase(prefix = 'hub_test'): Promise<TestDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    name,
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** A new database with the hub's migrations applied, for a hub process to open with `ConnectionStrings:postgres`. */
export async function createMigratedTestDatabase(prefix = 'hub_test'): Promise<TestDatabase> {
  const test = await createTestDatabase(prefix);
  const connector = new PgConnector({
    connectionString: test.url,
    maxConnections: 1,
    statementTimeoutMs: 10_000,
    log: { warn: () => undefined },
  });
  try {
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
  } finally {
    await connector.close();
  }
  return test;
}
