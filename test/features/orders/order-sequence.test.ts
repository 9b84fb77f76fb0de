import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Connector } from '../../../src/features/storage/connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { OrderStore } from '../../../src/features/orders/order-store.js';
import { Order } from '../../../src/features/orders/order.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';

const all = loadMigrations(defaultMigrationsDirectory());
const before = all.filter((m) => m.version < 7);

const INSERT_OLD = `insert into orders (tenant_id, order_id, customer_id, status, total, version) values (current_setting('app.tenant_id'), $1, 'c', 'draft', 0, 1)`;
const seqs = (db: TenantDatabase, tenant: string) =>
  db.withTenant(tenant, async (sql) =>
    (await sql.query<{ order_id: string; seq: string }>('select order_id, seq from orders order by seq')).rows.map(
      (r) => [r.order_id, Number(r.seq)],
    ),
  );

/**
 * Migration 0007 numbers each tenant's orders on their own (`seq`, the cursor's key): the orders
 * already there in creation order, the new ones after them, whatever other tenants do.
 */
async function numbersOrdersPerTenant(connector: Connector): Promise<void> {
  await migrate(connector, before);
  const db = new TenantDatabase(connector);
  // Interleaved over two tenants, as the global position numbered them before.
  for (const [tenant, id] of [
    ['acme', 'a1'],
    ['globex', 'g1'],
    ['globex', 'g2'],
    ['acme', 'a2'],
    ['globex', 'g3'],
  ] as const) {
    await db.withTenant(tenant, (sql) => sql.query(INSERT_OLD, [id]));
  }
  // 0007 and whatever came after it.
  expect(await migrate(connector, all)).toEqual(all.filter((m) => m.version >= 7).map((m) => m.version));
  expect(await seqs(db, 'acme')).toEqual([
    ['a1', 1],
    ['a2', 2],
  ]);
  expect(await seqs(db, 'globex')).toEqual([
    ['g1', 1],
    ['g2', 2],
    ['g3', 3],
  ]);

  const store = new OrderStore(db);
  const create = (tenant: string, id: string) =>
    store.change(tenant, id, () => Order.draft(id, 'c', []), { headers: {} });
  await create('acme', 'a3');
  await create('initech', 'i1');
  await Promise.all(Array.from({ length: 5 }, (_, i) => create('globex', `g-new-${i}`)));
  expect(await seqs(db, 'acme')).toEqual([
    ['a1', 1],
    ['a2', 2],
    ['a3', 3],
  ]);
  expect(await seqs(db, 'initech')).toEqual([['i1', 1]]);
  expect((await seqs(db, 'globex')).map(([, seq]) => seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  // The counters are tenant rows like any other: a tenant sees its own only.
  expect(
    await db.withTenant(
      'acme',
      async (sql) => (await sql.query('select tenant_id, last_seq from order_sequences')).rows,
    ),
  ).toEqual([{ tenant_id: 'acme', last_seq: expect.anything() }]);

  const page = await store.pageBefore('globex', 4, 2);
  expect(page.items.map((o) => o.orderId)).toEqual(['g3', 'g2']);
  expect(page.lastSeq).toBe(2);
}

describe('migration 0007: orders numbered per tenant', { timeout: 60_000 }, () => {
  it('on embedded PGlite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-seq-'));
    const connector = await PgliteConnector.open(join(dir, 'data'));
    try {
      await numbersOrdersPerTenant(connector);
    } finally {
      await connector.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL', async ({ skip }) => {
    if (!(await requirePostgres())) return skip();
    const test = await createTestDatabase('hub_seq');
    const connector = new PgConnector({
      connectionString: test.url,
      maxConnections: 4,
      statementTimeoutMs: 10_000,
      log: { warn: () => undefined },
    });
    try {
      await numbersOrdersPerTenant(connector);
    } finally {
      await connector.close();
      await test.drop();
    }
  });
});
