import { MemoryTenantCatalogue } from '../../../src/adapters/memory/memory-tenant-catalogue.js';
import { tenantCatalogueContract } from '../../features/gateway/tenant-catalogue.case.js';

tenantCatalogueContract('in memory', async () => {
  const catalogue = new MemoryTenantCatalogue();
  return { catalogue, assign: async (t, s) => catalogue.assign(t, s), dispose: async () => {} };
});
