import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { boundedRedisOptions } from '../backplane/bounded-redis-options.js';
import type { Clock } from '../host/clock.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { LogThrottle } from '../host/log-throttle.js';
import type { CacheStore } from './cache-store.js';
import { DataCache } from './data-cache.js';
import { MemoryCacheStore } from './memory-cache-store.js';
import { RedisCacheStore } from './redis-cache-store.js';

export interface CacheServiceOptions {
  redisUrl: string | undefined;
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
 * owned here, with the hub's bounded options) or in memory. An unreachable Redis does not stop
 * start-up: until it is back each cache call fails at once and is a miss (logged at most once per 10 s).
 */
export class CacheService implements HostedService {
  readonly name = 'caches';
  readonly outputStore: CacheStore;
  readonly data: DataCache;
  readonly #redis: Redis | undefined;
  readonly #warn: LogThrottle;

  constructor(options: CacheServiceOptions) {
    this.#warn = new LogThrottle(options.log, 10_000, () => options.clock.now());
    const dataLimits = { maxEntries: options.dataCache.maxEntries, maxEntryBytes: DATA_ENTRY_BYTES };
    if (options.redisUrl !== undefined) {
      this.#redis = new Redis(options.redisUrl, boundedRedisOptions());
      this.#redis.on('error', () => undefined);
      this.outputStore = new RedisCacheStore(this.#redis, `${options.keyPrefix}output-cache:`, options.outputCache);
      this.data = new DataCache(new RedisCacheStore(this.#redis, `${options.keyPrefix}data-cache:`, dataLimits), this.onStoreError);
    } else {
      this.outputStore = new MemoryCacheStore(options.outputCache, options.clock);
      this.data = new DataCache(new MemoryCacheStore(dataLimits, options.clock), this.onStoreError);
    }
  }

  /** For every cache user: a failed store call is a miss, logged without the error's details repeating. */
  readonly onStoreError = (err: unknown): void => {
    this.#warn.warn({ err: err instanceof Error ? err.message : String(err) }, 'cache store unavailable; answering without it');
  };

  /** Waits for the first connection attempt only; ioredis keeps reconnecting after a failed one. */
  async start(): Promise<void> {
    await this.#redis?.connect().catch(() => undefined);
  }

  async stop(): Promise<void> {
    if (this.#redis?.status === 'ready') await this.#redis.quit().catch(() => undefined);
    this.#redis?.disconnect();
  }
}
