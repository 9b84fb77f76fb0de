/** The hub on a real PostgreSQL: schema check at start, health during an outage, reconnecting. */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../src/features/storage/migrations.js';
import { PgConnector } from '../../src/adapters/postgres/pg-connector.js';
import { TenantDatabase } from '../../src/features/storage/tenant-database.js';
import { ChildHost, EPHEMERAL, MAIN } from '../host/support/child-host.js';
import { eventually, startApp, type RunningApp } from '../support/app-harness.js';
import { createTestDatabase, requirePostgres, type TestDatabase } from '../support/postgres.js';

const log = { warn: () => undefined };

async function asAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const available = await requirePostgres();

describe.runIf(available)('the hub on PostgreSQL', () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase();
  });
  afterAll(async () => {
    await asAdmin(`alter database ${test.name} allow_connections true`).catch(() => undefined);
    await test?.drop();
  });

  it('refuses to start against a database that lacks migrations, naming `npm run migrate`', async () => {
    const empty = await createTestDatabase();
    try {
      const hub = new ChildHost(MAIN, [
        '--environment=Development',
        ...EPHEMERAL,
        `--ConnectionStrings:postgres=${empty.url}`,
      ]);
      const { code } = await hub.exited;
      expect(code).toBe(1);
      expect(hub.output).toMatch(/missing migrations 0001.*run `npm run migrate`/);
    } finally {
      await empty.drop();
    }
  });

  describe('migrated', () => {
    let app: RunningApp;
    beforeAll(async () => {
      const connector = new PgConnector({
        connectionString: test.url,
        maxConnections: 1,
        statementTimeoutMs: 10_000,
        log,
      });
      await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
      await connector.close();
      app = await startApp([
        `--ConnectionStrings:postgres=${test.url}`,
        '--Database:MaxConnections=2',
        '--Health:CheckTimeoutSeconds=2',
      ]);
    });
    afterAll(async () => {
      await app?.stop();
    });

    const probe = async (path: string) => {
      const res = await fetch(`${app.url}${path}`);
      const body = (await res.json()) as { checks: { name: string; status: string }[] };
      return { status: res.status, database: body.checks.find((c) => c.name === 'database')?.status };
    };

    it('an outage fails ready with the database check, never live, keeps what arrives meanwhile, and recovers by itself', async () => {
      expect(await probe('/health/ready')).toEqual({ status: 200, database: 'Healthy' });
      await asAdmin(`alter database ${test.name} allow_connections false`);
      await asAdmin(`select pg_terminate_backend(pid) from pg_stat_activity where datname = '${test.name}'`);
      await eventually(
        () =>
          probe('/health/ready').then(
            (r) => r.status === 503,
            () => false,
          ),
        15_000,
        'ready 503',
      );
      expect(await probe('/health/ready')).toEqual({ status: 503, database: 'Unhealthy' });
      expect((await probe('/health/live')).status).toBe(200);
      // Readings accepted while the database is away wait in the writer's queue.
      for (let n = 0; n < 50; n++) {
        expect(
          app.app.telemetry.pipeline.offer({
            tenantId: 'outage',
            deviceId: 'd1',
            payload: Buffer.from(JSON.stringify({ n })),
          }).accepted,
        ).toBe(true);
      }
      await eventually(() => app.app.history!.writer.stats().failedBatches > 0, 15_000, 'a batch refused');
      expect(app.app.history!.writer.stats().pending).toBe(50);
      await asAdmin(`alter database ${test.name} allow_connections true`);
      await eventually(
        () =>
          probe('/health/ready').then(
            (r) => r.status === 200,
            () => false,
          ),
        15_000,
        'ready 200 again',
      );
      expect(await probe('/health/ready')).toEqual({ status: 200, database: 'Healthy' });
      await eventually(() => app.app.history!.writer.stats().pending === 0, 15_000, 'the queued readings stored');
      const stored = await app.app.database.withTenant(
        'outage',
        async (sql) => (await sql.query<{ n: number }>('select count(*)::int as n from readings')).rows[0]!.n,
      );
      expect(stored).toBe(50);
    });

    it('units of work after the connections were cut reconnect, with the tenant set again', async () => {
      await app.app.database.withTenant('acme', (sql) =>
        sql.query(
          `insert into devices (tenant_id, device_id, first_seen, last_seen, last_seq) values ('acme', 'd1', now(), now(), 1)`,
        ),
      );
      await asAdmin(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${test.name}' and application_name = 'telemetry-hub'`,
      );
      // The first unit on a cut connection may fail; the pool drops that connection and the next one works.
      await app.app.database.withSystem((sql) => sql.query('select 1')).catch(() => undefined);
      await app.app.database.withSystem((sql) => sql.query('select 1')).catch(() => undefined);
      const seen = await app.app.database.withTenant(
        'acme',
        async (sql) => (await sql.query('select device_id from devices')).rows,
      );
      expect(seen).toEqual([{ device_id: 'd1' }]);
      expect(
        await app.app.database.withTenant(
          'globex',
          async (sql) => (await sql.query('select device_id from devices')).rows,
        ),
      ).toEqual([]);
    });
  });

  it('a statement past Database:StatementTimeoutSeconds is cancelled, and the connection serves the next unit', async () => {
    const connector = new PgConnector({ connectionString: test.url, maxConnections: 1, statementTimeoutMs: 200, log });
    const db = new TenantDatabase(connector);
    try {
      await expect(db.withSystem((sql) => sql.query('select pg_sleep(5)'))).rejects.toThrow(/statement timeout/);
      expect((await db.withSystem((sql) => sql.query('select 1 as one'))).rows).toEqual([{ one: 1 }]);
    } finally {
      await connector.close();
    }
  });
});
