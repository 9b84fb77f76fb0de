/**
 * The Database contract both engines run (embedded PGlite and PostgreSQL): tenant isolation by
 * row-level security on every unit of work, and migrations. A new engine is one factory.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector } from '../../../src/features/storage/connector.js';
import type { Database } from '../../../src/features/storage/database.js';
import {
  defaultMigrationsDirectory,
  loadMigrations,
  migrate,
  missingMigrations,
  type Migration,
} from '../../../src/features/storage/migrations.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';

export interface EngineUnderTest {
  /** The login role's raw transactions on a migrated database (owner view: sees every row). */
  readonly connector: Connector;
  /** An empty, unmigrated database: `a` and `b` are two clients of it (the same one where the engine has one session). */
  fresh(): Promise<{ a: Connector; b: Connector; cliArgs: string[]; dispose(): Promise<void> }>;
  dispose(): Promise<void>;
}

const MIGRATE_CLI = join(import.meta.dirname, '..', '..', '..', 'dist', 'src', 'tools', 'migrate-cli.js');
const migrations = loadMigrations(defaultMigrationsDirectory());

async function ownerCount(connector: Connector, table: string, tenantId: string): Promise<number> {
  return connector.transaction(async (sql) =>
    Number(
      (await sql.query<{ n: number }>(`select count(*)::int as n from ${table} where tenant_id = $1`, [tenantId]))
        .rows[0]!.n,
    ),
  );
}

async function tables(connector: Connector, names: string[]): Promise<Record<string, boolean>> {
  return connector.transaction(async (sql) => {
    const out: Record<string, boolean> = {};
    for (const n of names)
      out[n] = (await sql.query<{ t: string | null }>('select to_regclass($1)::text as t', [n])).rows[0]!.t !== null;
    return out;
  });
}

const insertReading = (seq: number, tenantId: string, deviceId = 'd1') => ({
  text: `insert into readings (tenant_id, device_id, seq, ts, received_at, data) values ($1, $2, $3, now(), now(), '{"t":1}'::jsonb)`,
  params: [tenantId, deviceId, seq],
});

export function runDatabaseContract(name: string, create: () => Promise<EngineUnderTest>): void {
  describe(`${name} (Database contract)`, () => {
    let engine: EngineUnderTest;
    let db: Database;
    beforeAll(async () => {
      engine = await create();
      db = new TenantDatabase(engine.connector);
      for (const tenant of ['acme', 'globex']) {
        await db.withTenant(tenant, async (sql) => {
          for (let seq = 1; seq <= 3; seq++) {
            const r = insertReading(seq, tenant);
            await sql.query(r.text, r.params);
          }
        });
      }
    });
    afterAll(async () => {
      await engine?.dispose();
    });

    describe('row-level security', () => {
      it('a unit of work with no tenant sees no rows, though they exist', async () => {
        const seen = await db.withSystem(async (sql) => (await sql.query('select * from readings')).rows.length);
        expect(seen).toBe(0);
        expect(await ownerCount(engine.connector, 'readings', 'acme')).toBe(3);
      });

      it('a tenant sees its own rows only, even asking for another tenant by hand', async () => {
        const own = await db.withTenant(
          'acme',
          async (sql) => (await sql.query<{ tenant_id: string }>('select tenant_id from readings')).rows,
        );
        expect(own.map((r) => r.tenant_id)).toEqual(['acme', 'acme', 'acme']);
        const other = await db.withTenant(
          'acme',
          async (sql) => (await sql.query(`select * from readings where tenant_id = 'globex'`)).rows,
        );
        expect(other).toEqual([]);
      });

      it("a tenant cannot insert, update or delete another tenant's rows", async () => {
        const r = insertReading(99, 'globex');
        await expect(db.withTenant('acme', (sql) => sql.query(r.text, r.params))).rejects.toThrow(/row-level security/);
        const updated = await db.withTenant('acme', (sql) =>
          sql.query(`update readings set data = '{"t":2}' where tenant_id = 'globex'`),
        );
        const deleted = await db.withTenant('acme', (sql) =>
          sql.query(`delete from readings where tenant_id = 'globex'`),
        );
        expect([updated.rowCount, deleted.rowCount]).toEqual([0, 0]);
        await expect(
          db.withTenant('acme', (sql) => sql.query(`update readings set tenant_id = 'globex' where seq = 1`)),
        ).rejects.toThrow(/row-level security/);
        expect(await ownerCount(engine.connector, 'readings', 'globex')).toBe(3);
        expect(await ownerCount(engine.connector, 'readings', 'acme')).toBe(3);
      });

      it('the devices table is isolated the same way', async () => {
        const upsert = `insert into devices (tenant_id, device_id, first_seen, last_seen, last_seq) values ($1, 'd1', now(), now(), 1)`;
        await db.withTenant('acme', (sql) => sql.query(upsert, ['acme']));
        await expect(db.withTenant('acme', (sql) => sql.query(upsert, ['globex']))).rejects.toThrow(
          /row-level security/,
        );
        expect(
          await db.withTenant('globex', async (sql) => (await sql.query('select * from devices')).rows.length),
        ).toBe(0);
        expect(await ownerCount(engine.connector, 'devices', 'acme')).toBe(1);
      });

      it("a tenant reads no other tenant's rows of the tenant catalogues (tenants, tenant_stamps); system work reads them all", async () => {
        // As the history writer records a tenant, and as an operator (the owner) assigns stamps.
        for (const tenant of ['acme', 'globex']) {
          await db.withTenant(tenant, (sql) =>
            sql.query(
              `insert into tenants (tenant_id) values (current_setting('app.tenant_id')) on conflict do nothing`,
            ),
          );
        }
        await engine.connector.transaction((sql) =>
          sql.query(
            `insert into tenant_stamps (tenant_id, stamp) values ('acme', 'pool-1'), ('globex', 'silo-globex') on conflict do nothing`,
          ),
        );

        const seenBy = (tenant: string, text: string) =>
          db.withTenant(tenant, async (sql) =>
            (await sql.query<{ tenant_id: string }>(text)).rows.map((r) => r.tenant_id),
          );
        expect(await seenBy('acme', 'select tenant_id from tenants order by tenant_id')).toEqual(['acme']);
        expect(await seenBy('acme', `select tenant_id from tenants where tenant_id = 'globex'`)).toEqual([]);
        expect(await seenBy('acme', 'select tenant_id from tenant_stamps')).toEqual([]);
        expect(await seenBy('globex', 'select tenant_id from tenant_stamps')).toEqual([]);
        // A tenant cannot record another tenant either.
        await expect(
          db.withTenant('acme', (sql) => sql.query(`insert into tenants (tenant_id) values ('initech')`)),
        ).rejects.toThrow(/row-level security/);

        // The rows are there: system work (the gateway, retention, device restore) still reads them.
        const system = (text: string) =>
          db.withSystem(async (sql) => (await sql.query<{ tenant_id: string }>(text)).rows.map((r) => r.tenant_id));
        expect(await system('select tenant_id from tenants order by tenant_id')).toEqual(['acme', 'globex']);
        expect(await system('select tenant_id from tenant_stamps order by tenant_id')).toEqual(['acme', 'globex']);
      });

      it('units of work run as the app role, which owns nothing and cannot bypass row-level security', async () => {
        const role = await db.withTenant(
          'acme',
          async (sql) => (await sql.query<{ u: string }>('select current_user as u')).rows[0]!.u,
        );
        expect(role).toBe('app');
        const attrs = await engine.connector.transaction(
          async (sql) =>
            (
              await sql.query<{ rolsuper: boolean; rolbypassrls: boolean; owned: number }>(
                `select rolsuper, rolbypassrls, (select count(*)::int from pg_class where relowner = r.oid) as owned from pg_roles r where rolname = 'app'`,
              )
            ).rows[0],
        );
        expect(attrs).toEqual({ rolsuper: false, rolbypassrls: false, owned: 0 });
        const forced = await engine.connector.transaction(
          async (sql) =>
            (
              await sql.query<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
                `select relname, relrowsecurity, relforcerowsecurity from pg_class where relname in ('devices', 'readings') order by relname`,
              )
            ).rows,
        );
        expect(forced).toEqual([
          { relname: 'devices', relrowsecurity: true, relforcerowsecurity: true },
          { relname: 'readings', relrowsecurity: true, relforcerowsecurity: true },
        ]);
      });

      it('the tenant and the role end with the transaction: the next unit of work on the same connection has neither', async () => {
        const inside = await db.withTenant(
          'acme',
          async (sql) => (await sql.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid,
        );
        const after = await engine.connector.transaction(
          async (sql) =>
            (
              await sql.query<{ pid: number; tenant: string | null; u: string }>(
                `select pg_backend_pid() as pid, current_setting('app.tenant_id', true) as tenant, current_user as u`,
              )
            ).rows[0]!,
        );
        // The engines under test hand out one connection, so this is the connection the tenant just used.
        expect(after.pid).toBe(inside);
        expect(after.tenant ?? '').toBe('');
        expect(after.u).not.toBe('app');
        expect(await db.withSystem(async (sql) => (await sql.query('select * from readings')).rows.length)).toBe(0);
      });

      it('a unit of work that throws leaves nothing behind, and the next one runs', async () => {
        await expect(
          db.withTenant('acme', async (sql) => {
            const r = insertReading(50, 'acme');
            await sql.query(r.text, r.params);
            throw new Error('changed my mind');
          }),
        ).rejects.toThrow('changed my mind');
        await expect(db.withTenant('acme', (sql) => sql.query('select 1/0'))).rejects.toThrow(/division by zero/);
        expect(await ownerCount(engine.connector, 'readings', 'acme')).toBe(3);
        expect(
          await db.withTenant('acme', async (sql) => (await sql.query('select * from readings')).rows.length),
        ).toBe(3);
      });

      it('a unit of work that swallows a failed statement does not commit what came before it', async () => {
        const r = insertReading(60, 'acme');
        await expect(
          db.withTenant('acme', async (sql) => {
            await sql.query(r.text, r.params);
            await sql.query('select 1/0').catch(() => undefined);
          }),
        ).rejects.toThrow(/rolled back/);
        expect(await ownerCount(engine.connector, 'readings', 'acme')).toBe(3);
      });

      it('refuses a unit of work without a tenant id', async () => {
        await expect(db.withTenant('', async () => 1)).rejects.toThrow(/tenant/);
      });
    });

    // A new embedded database is seconds of initdb, and the CLI is a process of its own.
    describe('migrations', { timeout: 60_000 }, () => {
      it('a second run applies nothing', async () => {
        expect(await migrate(engine.connector, migrations)).toEqual([]);
        expect(await missingMigrations(engine.connector, migrations)).toEqual([]);
      });

      it('two runners at once apply each migration exactly once', async () => {
        const fresh = await engine.fresh();
        try {
          expect(await missingMigrations(fresh.a, migrations)).toHaveLength(migrations.length);
          const [x, y] = await Promise.all([migrate(fresh.a, migrations), migrate(fresh.b, migrations)]);
          expect([...x, ...y].sort((p, q) => p - q)).toEqual(migrations.map((m) => m.version));
          const rows = await fresh.a.transaction(
            async (sql) =>
              (await sql.query<{ version: number }>('select version from schema_migrations order by version')).rows,
          );
          expect(rows.map((r) => Number(r.version))).toEqual(migrations.map((m) => m.version));
        } finally {
          await fresh.dispose();
        }
      });

      it('a bad migration changes nothing, not even the good ones before it', async () => {
        const fresh = await engine.fresh();
        try {
          const bad: Migration = { version: 9999, name: 'bad', sql: 'create table half_done (x int); select 1/0;' };
          await expect(migrate(fresh.a, [...migrations, bad])).rejects.toThrow(/9999_bad failed: division by zero/);
          expect(await tables(fresh.a, ['half_done', 'readings', 'schema_migrations'])).toEqual({
            half_done: false,
            readings: false,
            schema_migrations: false,
          });
          expect(await missingMigrations(fresh.a, migrations)).toHaveLength(migrations.length);
        } finally {
          await fresh.dispose();
        }
      });

      it('`npm run migrate` exits non-zero on a bad migration with nothing changed, then 0 once it is fixed', async () => {
        const fresh = await engine.fresh();
        // The process needs the database to itself where the engine is embedded.
        await fresh.a.close();
        try {
          const dir = mkdtempSync(join(tmpdir(), 'hub-migrations-'));
          for (const m of migrations)
            copyFileSync(
              join(defaultMigrationsDirectory(), `${String(m.version).padStart(4, '0')}_${m.name}.sql`),
              join(dir, `${String(m.version).padStart(4, '0')}_${m.name}.sql`),
            );
          writeFileSync(join(dir, '9999_broken.sql'), 'create table half_done (x int);\nthis is not sql;\n');
          const run = () =>
            spawnSync(process.execPath, [MIGRATE_CLI, ...fresh.cliArgs, `--Database:MigrationsDirectory=${dir}`], {
              encoding: 'utf8',
              env: { ...process.env, HUB_ENVIRONMENT: 'Production' },
            });
          const failed = run();
          expect(failed.status).toBe(1);
          expect(failed.stderr).toMatch(/9999_broken failed: .*syntax error.*nothing was changed/);
          writeFileSync(join(dir, '9999_broken.sql'), 'create table half_done (x int);\n');
          const fixed = run();
          expect(fixed.stderr).toBe('');
          expect(fixed.status).toBe(0);
          expect(fixed.stdout).toMatch(/applied 0001.*9999/);
          const again = run();
          expect([again.status, again.stdout]).toEqual([0, expect.stringMatching(/up to date/)]);
        } finally {
          await fresh.dispose();
        }
      });
    });
  });
}
