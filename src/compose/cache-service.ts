import type { Logger } from 'pino';
import { RedisConnection } from '../adapters/redis/redis-connection.js';
import type { Clock } from '../host/clock.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { LogThrottle } from '../host/log-throttle.js';
import type { CacheStore } from '../features/cache/cache-store.js';
import { DataCache } from '../features/cache/data-cache.js';
import { MemoryCacheStore } from '../adapters/memory/memory-cache-store.js';
import { RedisCacheStore } from '../adapters/redis/redis-cache-store.js';

export interface CacheServiceOptions {
  redisUrl: string | undefined;
  /** `redisUrl` names a node of a Redis Cluster; `keyPrefix` then has a hash tag (the scripts use several keys). */
  redisCluster?: boolean;
  /** Starts every Redis key, e.g. `telemetry-hub:{Hub:Name}:`: hubs sharing a Redis keep apart. */
  keyPrefix: string;
  outputCache: { maxEntries: number; maxEntryBytes: number };
  dataCache: { maxEntries: number };
  clock: Clock;
  log: Logger;
}

/** Cached objects are small records (metadata, catalogue rows), never payloads. */
const DATA_ENTRY_BYTES = 16 * 1024;

/**
 * The output cache's store and the data cache, in Redis when configured (one client for both,
 * owned here) or in memory. An unreachable Redis does not stop
 * start-up: until it is back each cache call fails at once and is a miss (logged at most once per 10 s).
 */
export class CacheService implements HostedService {
  readonly name = 'caches';
  readonly outputStore: CacheStore;
  readonly data: DataCache;
  readonly #redis: RedisConnection | undefined;
  readonly #warn: LogThrottle;

  constructor(options: CacheServiceOptions) {
    this.#warn = new LogThrottle(options.log, 10_000, () => options.clock.now());
    const dataLimits = { maxEntries: options.dataCache.maxEntries, maxEntryBytes: DATA_ENTRY_BYTES };
    if (options.redisUrl !== undefined) {
      this.#redis = new RedisConnection({
        url: options.redisUrl,
        cluster: options.redisCluster ?? false,
        name: 'cache-redis',
        log: options.log,
      });
      this.outputStore = new RedisCacheStore(
        this.#redis.client,
        `${options.keyPrefix}output-cache:`,
        options.outputCache,
      );
      this.data = new DataCache(
        new RedisCacheStore(this.#redis.client, `${options.keyPrefix}data-cache:`, dataLimits),
        this.onStoreError,
      );
    } else {
      this.outputStore = new MemoryCacheStore(options.outputCache, options.clock);
      this.data = new DataCache(new MemoryCacheStore(dataLimits, options.clock), this.onStoreError);
    }
  }

  /** For every cache user: a failed store call is a miss, logged without the error's details repeating. */
  readonly onStoreError = (err: unknown): void => {
    this.#warn.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'cache store unavailable; answering without it',
    );
  };

  async start(): Promise<void> {
    await this.#redis?.start();
  }

  async stop(): Promise<void> {
    await this.#redis?.stop();
  }
}
