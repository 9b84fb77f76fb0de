import { MemoryTenantCatalogue } from '../../src/gateway/tenant-catalogue.js';
import { tenantCatalogueContract } from './tenant-catalogue.case.js';

tenantCatalogueContract('in memory', async () => {
  const catalogue = new MemoryTenantCatalogue();
  return { catalogue, assign: async (t, s) => catalogue.assign(t, s), dispose: async () => {} };
});
