import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';
import { redisOrReport, REDIS_URL } from '../eventhubs/redis-for-tests.js';
import { runBackplaneContract } from '../../realtime/backplane.case.js';

if (await redisOrReport('RedisBackplane contract')) {
  runBackplaneContract('RedisBackplane', async (size) => {
    // A hub name per test: its channel is this test's alone.
    const hubName = `contract-${randomUUID()}`;
    const nodes = Array.from(
      { length: size },
      () => new RedisBackplane({ url: REDIS_URL, hubName, log: pino({ level: 'silent' }) }),
    );
    await Promise.all(nodes.map((n) => n.start()));
    return { nodes, dispose: async () => void (await Promise.all(nodes.map((n) => n.close()))) };
  });
}
