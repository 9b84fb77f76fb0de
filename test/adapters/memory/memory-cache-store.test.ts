import { MemoryCacheStore } from '../../../src/adapters/memory/memory-cache-store.js';
import { systemClock } from '../../../src/host/clock.js';
import { runCacheStoreContract } from '../../features/cache/cache-store.case.js';

runCacheStoreContract('MemoryCacheStore', async (limits) => {
  const store = new MemoryCacheStore(limits, systemClock);
  return { store, dispose: () => store.close() };
});
