import { describe } from 'vitest';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { runHistoryStoreContract } from './history-store.case.js';

if (await requirePostgres()) {
  runHistoryStoreContract('PostgreSQL', async () => {
    const test = await createTestDatabase();
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
  describe.skip('PostgreSQL (history store): no server on 127.0.0.1:5432', () => undefined);
}
