import { DatabaseFirmwareCatalogue } from '../../../src/features/firmware/database-firmware-catalogue.js';
import { PgConnector } from '../../../src/adapters/postgres/pg-connector.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { defaultMigrationsDirectory, loadMigrations, migrate } from '../../../src/features/storage/migrations.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { freshDataDirectory } from '../../support/embedded-database.js';
import { createTestDatabase, requirePostgres } from '../../support/postgres.js';
import { runFirmwareCatalogueContract } from './firmware-catalogue.case.js';

runFirmwareCatalogueContract('DatabaseFirmwareCatalogue on embedded PGlite', async () => {
  const data = freshDataDirectory();
  const connector = await PgliteConnector.open(data.path);
  return {
    catalogue: new DatabaseFirmwareCatalogue(new TenantDatabase(connector)),
    dispose: async () => {
      await connector.close();
      data.remove();
    },
  };
});

if (await requirePostgres()) {
  runFirmwareCatalogueContract('DatabaseFirmwareCatalogue on PostgreSQL', async () => {
    const test = await createTestDatabase('hub_fw');
    const connector = new PgConnector({
      connectionString: test.url,
      maxConnections: 2,
      statementTimeoutMs: 10_000,
      log: { warn: () => undefined },
    });
    await migrate(connector, loadMigrations(defaultMigrationsDirectory()));
    return {
      catalogue: new DatabaseFirmwareCatalogue(new TenantDatabase(connector)),
      dispose: async () => {
        await connector.close();
        await test.drop();
      },
    };
  });
}
