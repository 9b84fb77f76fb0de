import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { freshDataDirectory } from '../../support/embedded-database.js';

/** The embedded database runs in its own thread: the hub's event loop keeps turning while it works. */
describe('embedded PGlite off the event loop', () => {
  let data: { path: string; remove(): void };
  let connector: PgliteConnector;
  beforeAll(async () => {
    data = freshDataDirectory();
    connector = await PgliteConnector.open(data.path);
  });
  afterAll(async () => {
    await connector?.close();
    data?.remove();
  });

  it('timers keep firing while a statement runs (in the hub thread they stopped until it ended)', async () => {
    let ticks = 0;
    const interval = setInterval(() => ticks++, 10);
    try {
      await new TenantDatabase(connector).withSystem((sql) => sql.query('select pg_sleep(0.5)'));
    } finally {
      clearInterval(interval);
    }
    // In the hub's own thread the interval could not run once during the half second.
    expect(ticks).toBeGreaterThanOrEqual(2);
  });

  it("an error keeps its SQLSTATE and fields across the thread, and the unit of work's changes roll back", async () => {
    const db = new TenantDatabase(connector);
    const err = await db
      .withTenant('acme', async (sql) => {
        await sql.query(`insert into tenants (tenant_id) values ('acme') on conflict do nothing`);
        await sql.query(
          `insert into readings (tenant_id, device_id, seq, ts, received_at, data) values ('acme', 'w1', 1, now(), now(), '{}'::jsonb)`,
        );
        await sql.query(
          `insert into readings (tenant_id, device_id, seq, ts, received_at, data) values ('acme', 'w1', 1, now(), now(), '{}'::jsonb)`,
        );
      })
      .then(
        () => undefined,
        (e: unknown) => e as Error & { code?: string },
      );
    expect(err).toBeInstanceOf(Error);
    expect(err?.code).toBe('23505');
    expect(err?.message).toMatch(/duplicate key/);
    const left = await db.withTenant('acme', (sql) => sql.query(`select 1 from readings where device_id = 'w1'`));
    expect(left.rowCount).toBe(0);
  });

  it('SET LOCAL and set_config(…, true) hold for the rest of their unit of work and end with it', async () => {
    const db = new TenantDatabase(connector);
    const inside = await db.withTenant('globex', async (sql) => {
      await sql.query(`select set_config('app.probe', 'x', true)`);
      return (
        await sql.query<{ t: string; p: string; r: string }>(
          `select current_setting('app.tenant_id') as t, current_setting('app.probe') as p, current_user as r`,
        )
      ).rows[0];
    });
    expect(inside).toEqual({ t: 'globex', p: 'x', r: 'app' });
    const after = await connector.transaction(
      async (sql) =>
        (await sql.query<{ p: string | null }>(`select current_setting('app.probe', true) as p`)).rows[0]!.p,
    );
    expect(after ?? '').toBe('');
  });

  it('close ends the worker thread: calls after it fail and the directory is free again', async () => {
    const other = freshDataDirectory();
    try {
      const c = await PgliteConnector.open(other.path);
      await c.transaction((sql) => sql.query('select 1'));
      await c.close();
      await expect(c.transaction((sql) => sql.query('select 1'))).rejects.toThrow(/closed/);
      // The directory is free again: a second open in this process works (the lock was released).
      const again = await PgliteConnector.open(other.path);
      await again.close();
    } finally {
      other.remove();
    }
  });
});
