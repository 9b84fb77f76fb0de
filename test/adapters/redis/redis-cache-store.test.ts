import { randomUUID } from 'node:crypto';
import { RedisCacheStore } from '../../../src/adapters/redis/redis-cache-store.js';
import { deleteKeys, redisOrReport, testRedis } from '../eventhubs/redis-for-tests.js';
import { runCacheStoreContract } from '../../features/cache/cache-store.case.js';

if (await redisOrReport('RedisCacheStore contract')) {
  runCacheStoreContract('RedisCacheStore', async (limits) => {
    const redis = testRedis();
    await redis.connect();
    // A prefix per test: its keys are this test's alone.
    const prefix = `test:cache:${randomUUID()}:`;
    return {
      store: new RedisCacheStore(redis, prefix, limits),
      dispose: async () => {
        await deleteKeys(redis, prefix);
        await redis.quit();
      },
    };
  });
}
