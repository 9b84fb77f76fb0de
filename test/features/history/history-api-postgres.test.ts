import { describe } from 'vitest';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { runHistoryApiContract } from './history-api.case.js';

if (await requirePostgres()) {
  runHistoryApiContract('PostgreSQL', async () => {
    const test = await createTestDatabase();
    const connector = new PgConnector({
      connectionString: test.url,
      maxConnections: 1,
      statementTimeoutMs: 10_000,
      log: { warn: () => undefined },
    });
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
    await connector.close();
    return { args: [`--ConnectionStrings:postgres=${test.url}`], dispose: () => test.drop() };
  });
} else {
  describe.skip('PostgreSQL (history API): no server on 127.0.0.1:5432', () => undefined);
}
