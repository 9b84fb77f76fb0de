import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { MemoryTenantCatalogue } from '../../../src/adapters/memory/memory-tenant-catalogue.js';
import { CachedTenantCatalogue } from '../../../src/features/gateway/cached-tenant-catalogue.js';
import { tenantCatalogueContract } from './tenant-catalogue.case.js';

const TTL_MS = 30_000;

// A move reaches the cache's readers within its ttl: the operator's assign is followed by that much time.
tenantCatalogueContract('cached, in front of the memory catalogue', async () => {
  const inner = new MemoryTenantCatalogue();
  const clock = new ManualClock();
  const catalogue = new CachedTenantCatalogue({ inner, ttlMs: TTL_MS, clock });
  return {
    catalogue,
    assign: async (tenant, stamp) => {
      inner.assign(tenant, stamp);
      clock.advance(TTL_MS);
    },
    dispose: async () => {},
  };
});
