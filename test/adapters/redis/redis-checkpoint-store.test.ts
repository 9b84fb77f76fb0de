import { runCheckpointStoreContract } from '../../realtime/checkpoint-store.case.js';
import { redisOrReport, redisStoreUnderTest } from '../eventhubs/redis-for-tests.js';

if (await redisOrReport('RedisCheckpointStore contract')) {
  runCheckpointStoreContract('RedisCheckpointStore', redisStoreUnderTest);
}
