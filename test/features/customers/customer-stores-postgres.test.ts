import { describe } from 'vitest';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { runCustomerStoresContract } from './customer-stores.case.js';

if (await requirePostgres()) {
  runCustomerStoresContract('PostgreSQL', async () => {
    const test = await createTestDatabase('hub_customers');
    // Several connections, so concurrent payments really race for the account's lock.
    const connector = new PgConnector({
      connectionString: test.url,
      maxConnections: 4,
      statementTimeoutMs: 10_000,
      log: { warn: () => undefined },
    });
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
    return {
      database: new TenantDatabase(connector),
      dispose: async () => {
        await connector.close();
        await test.drop();
      },
    };
  });
} else {
  describe.skip('PostgreSQL (customer stores): no server on 127.0.0.1:5432', () => undefined);
}
