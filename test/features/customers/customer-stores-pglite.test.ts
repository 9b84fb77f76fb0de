import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { freshDataDirectory } from '../../support/embedded-database.js';
import { runCustomerStoresContract } from './customer-stores.case.js';

runCustomerStoresContract('embedded PGlite', async () => {
  const data = freshDataDirectory();
  const connector = await PgliteConnector.open(data.path);
  return {
    database: new TenantDatabase(connector),
    dispose: async () => {
      await connector.close();
      data.remove();
    },
  };
});
