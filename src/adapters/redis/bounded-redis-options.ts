import type { ClusterOptions, RedisOptions } from 'ioredis';
import { Backoff } from '../../host/backoff.js';

/** ms a command may wait for Redis' answer; beyond it the command fails instead of piling up. */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;
/** ms between reconnect attempts at most: attempts never stop (Redis may come back), they slow down. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 5000;

/**
 * ioredis options for every client the hub owns, so a Redis that is down or never answers cannot
 * eat memory: no offline queue (a command while not connected fails at once instead of waiting in
 * an unbounded queue), a timeout on every command written to a silent connection, one retry per
 * command across a reconnect, and reconnects backing off (with jitter, as every reconnect of the
 * hub does) to one per 5 s at most.
 */
export function boundedRedisOptions(): RedisOptions {
  const backoff = new Backoff(200, REDIS_MAX_RECONNECT_DELAY_MS);
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 5000,
    maxRetriesPerRequest: 1,
    // ioredis counts its attempts from 1 and starts again after a connect.
    retryStrategy: (attempt: number) => backoff.delay(attempt - 1),
  };
}

/**
 * The same bounds for a Redis Cluster client: per node (timeouts, one retry), and for the
 * cluster as a whole (no offline queue, reconnects backing off). `url`'s credentials and TLS
 * (`rediss:`) go to every node.
 */
export function boundedClusterOptions(url: string): ClusterOptions {
  const { lazyConnect, enableOfflineQueue, retryStrategy, ...perNode } = boundedRedisOptions();
  const { username, password, protocol } = new URL(url);
  return {
    lazyConnect,
    enableOfflineQueue,
    clusterRetryStrategy: retryStrategy,
    redisOptions: {
      ...perNode,
      ...(username ? { username: decodeURIComponent(username) } : {}),
      ...(password ? { password: decodeURIComponent(password) } : {}),
      ...(protocol === 'rediss:' ? { tls: {} } : {}),
    },
  };
}
