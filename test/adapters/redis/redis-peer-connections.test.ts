import { Redis } from 'ioredis';
import { pino } from 'pino';
import { boundedRedisOptions } from '../../../src/adapters/redis/bounded-redis-options.js';
import { RedisPeerConnections } from '../../../src/adapters/redis/redis-peer-connections.js';
import { eventually } from '../../support/app-harness.js';
import { redisOrReport, REDIS_URL, uniquePrefix } from '../eventhubs/redis-for-tests.js';
import { runPeerConnectionsContract } from '../../realtime/peer-connections.case.js';

if (await redisOrReport('RedisPeerConnections contract')) {
  runPeerConnectionsContract('RedisPeerConnections', async (size) => {
    const keyPrefix = uniquePrefix();
    const log = pino({ level: 'silent' });
    const pubs = Array.from({ length: size }, () => new Redis(REDIS_URL, boundedRedisOptions()));
    await Promise.all(pubs.map((p) => p.connect()));
    const nodes = pubs.map((pub) => new RedisPeerConnections({ url: REDIS_URL, keyPrefix, pub, log }));
    await Promise.all(nodes.map((n) => n.start()));
    // Subscribed: each node's subscription is counted by PUBLISH once Redis has it.
    const probe = new Redis(REDIS_URL);
    await eventually(
      async () => (await probe.pubsub('NUMSUB', `${keyPrefix}peers:ask`))[1] === size,
      5000,
      'every node subscribed',
    );
    await probe.quit();
    const stopped = new Set<number>();
    return {
      nodes,
      kill: async (i) => {
        stopped.add(i);
        await nodes[i]!.stop();
      },
      dispose: async () => {
        await Promise.all(nodes.map((n, i) => (stopped.has(i) ? undefined : n.stop())));
        await Promise.all(pubs.map((p) => p.quit()));
      },
    };
  });
}
