import { runCheckpointStoreContract } from './checkpoint-store.case.js';
import { redisOrReport, redisStoreUnderTest } from './redis-for-tests.js';

if (await redisOrReport('RedisCheckpointStore contract')) {
  runCheckpointStoreContract('RedisCheckpointStore', redisStoreUnderTest);
}
