import { MemoryFirmwareCatalog } from '../../src/firmware/firmware-catalog.js';
import { DatabaseFirmwareCatalog } from '../../src/firmware/database-firmware-catalog.js';
import { PgConnector } from '../../src/db/pg-connector.js';
import { PgliteConnector } from '../../src/db/pglite-connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../src/db/migrations.js';
import { TenantDatabase } from '../../src/db/tenant-database.js';
import { freshDataDirectory } from '../support/embedded-database.js';
import { createTestDatabase, requirePostgres } from '../support/postgres.js';
import { runFirmwareCatalogContract } from './firmware-catalog.case.js';

runFirmwareCatalogContract('MemoryFirmwareCatalog', async () => ({ catalog: new MemoryFirmwareCatalog(), dispose: async () => undefined }));

runFirmwareCatalogContract('DatabaseFirmwareCatalog on embedded PGlite', async () => {
  const data = freshDataDirectory();
  const connector = await PgliteConnector.open(data.path);
  return {
    catalog: new DatabaseFirmwareCatalog(new TenantDatabase(connector)),
    dispose: async () => {
      await connector.close();
      data.remove();
    },
  };
});

if (await requirePostgres()) {
  runFirmwareCatalogContract('DatabaseFirmwareCatalog on PostgreSQL', async () => {
    const test = await createTestDatabase('hub_fw');
    const connector = new PgConnector({ connectionString: test.url, maxConnections: 2, statementTimeoutMs: 10_000, log: { warn: () => undefined } });
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
    return {
      catalog: new DatabaseFirmwareCatalog(new TenantDatabase(connector)),
      dispose: async () => {
        await connector.close();
        await test.drop();
      },
    };
  });
}
