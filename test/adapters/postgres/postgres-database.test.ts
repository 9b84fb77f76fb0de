import { runDatabaseContract } from '../../features/storage/database.case.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { describe } from 'vitest';

const log = { warn: () => undefined };
const pool = (url: string, max = 1) =>
  new PgConnector({ connectionString: url, maxConnections: max, statementTimeoutMs: 10_000, log });

if (await requirePostgres()) {
  runDatabaseContract('PostgreSQL', async () => {
    const test = await createTestDatabase();
    // One connection, so the leak test sees the very connection a tenant used before.
    const connector = pool(test.url);
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
    return {
      connector,
      fresh: async () => {
        const empty = await createTestDatabase();
        const a = pool(empty.url);
        const b = pool(empty.url);
        return {
          a,
          b,
          cliArgs: [`--ConnectionStrings:postgres=${empty.url}`],
          dispose: async () => {
            await Promise.allSettled([a.close(), b.close()]);
            await empty.drop();
          },
        };
      },
      dispose: async () => {
        await connector.close();
        await test.drop();
      },
    };
  });
} else {
  describe.skip('PostgreSQL (Database contract): no server on 127.0.0.1:5432', () => undefined);
}
