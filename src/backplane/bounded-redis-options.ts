import type { RedisOptions } from 'ioredis';

/** ms a command may wait for Redis' answer; beyond it the command fails instead of piling up. */
export const REDIS_COMMAND_TIMEOUT_MS = 2000;
/** ms between reconnect attempts at most: attempts never stop (Redis may come back), they slow down. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 5000;

/**
 * ioredis options for every client the hub owns, so a Redis that is down or never answers cannot
 * eat memory: no offline queue (a command while not connected fails at once instead of waiting in
 * an unbounded queue), a timeout on every command written to a silent connection, one retry per
 * command across a reconnect, and reconnects backing off to one per 5 s.
 */
export function boundedRedisOptions(): RedisOptions {
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 5000,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt: number) => Math.min(100 * 2 ** Math.min(attempt, 10), REDIS_MAX_RECONNECT_DELAY_MS),
  };
}
