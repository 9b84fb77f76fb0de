import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../../src/adapters/redis/bounded-redis-options.js';
import type { CacheStore } from '../../../src/features/cache/cache-store.js';
import { DataCache } from '../../../src/features/cache/data-cache.js';
import { MemoryCacheStore } from '../../../src/adapters/memory/memory-cache-store.js';
import { RedisCacheStore } from '../../../src/adapters/redis/redis-cache-store.js';
import { systemClock } from '../../../src/host/clock.js';
import { freePort } from '../../support/private-server.js';
import { deleteKeys, redisOrReport, testRedis } from '../../adapters/eventhubs/redis-for-tests.js';

const LIMITS = { maxEntries: 100, maxEntryBytes: 4096 };

/** A loader that counts its calls and answers when the test lets it. */
function countingLoader<T>(value: T) {
  let calls = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  return {
    load: async () => {
      calls++;
      await gate;
      return value;
    },
    release: () => release(),
    get calls() {
      return calls;
    },
  };
}

function dataCacheSuite(name: string, createStore: () => Promise<CacheStore>): void {
  describe(`DataCache on ${name}`, () => {
    it('runs one loader for many concurrent misses of a key, and none on a hit', async () => {
      const cache = new DataCache(await createStore());
      const loader = countingLoader({ name: 'fw.bin', size: 3 });
      const waiting = Array.from({ length: 20 }, () => cache.getOrLoad('t1:fw.bin', loader.load, { ttlMs: 60_000 }));
      loader.release();
      const values = await Promise.all(waiting);
      expect(loader.calls).toBe(1);
      expect(values.every((v) => v.size === 3)).toBe(true);
      const again = countingLoader({ name: 'other', size: 9 });
      again.release();
      expect(await cache.getOrLoad('t1:fw.bin', again.load, { ttlMs: 60_000 })).toEqual({ name: 'fw.bin', size: 3 });
      expect(again.calls).toBe(0);
    });

    it('loads again after an eviction by key or by tag, and never stores what a load began before an eviction', async () => {
      const cache = new DataCache(await createStore());
      let version = 1;
      const load = async () => ({ version });
      await cache.getOrLoad('t1:a', load, { ttlMs: 60_000, tags: ['t1:firmware'] });
      version = 2;
      await cache.evict('t1:a');
      expect(await cache.getOrLoad('t1:a', load, { ttlMs: 60_000, tags: ['t1:firmware'] })).toEqual({ version: 2 });
      version = 3;
      await cache.evictTag('t1:firmware');
      expect(await cache.getOrLoad('t1:a', load, { ttlMs: 60_000 })).toEqual({ version: 3 });

      // A slow load of the old value finishing after an eviction must not be kept.
      const slow = countingLoader({ version: 3 });
      const stale = cache.getOrLoad('t1:b', slow.load, { ttlMs: 60_000 });
      await cache.evict('t1:b');
      slow.release();
      await stale;
      const fresh = countingLoader({ version: 4 });
      fresh.release();
      expect(await cache.getOrLoad('t1:b', fresh.load, { ttlMs: 60_000 })).toEqual({ version: 4 });
    });

    it('keeps keys apart: another tenant’s key loads its own value', async () => {
      const cache = new DataCache(await createStore());
      await cache.getOrLoad('tenant-a:fw', async () => 'a', { ttlMs: 60_000 });
      expect(await cache.getOrLoad('tenant-b:fw', async () => 'b', { ttlMs: 60_000 })).toBe('b');
    });
  });
}

dataCacheSuite('memory', async () => new MemoryCacheStore(LIMITS, systemClock));

if (await redisOrReport('DataCache on Redis')) {
  const redis = testRedis();
  await redis.connect();
  const prefix = `test:data-cache:${randomUUID()}:`;
  afterAll(async () => {
    await deleteKeys(redis, prefix);
    await redis.quit();
  });
  let n = 0;
  dataCacheSuite('Redis', async () => new RedisCacheStore(redis, `${prefix}${n++}:`, LIMITS));
}

describe('DataCache on a Redis that is down', () => {
  it('loads from the source on every call and reports the store errors, never failing the caller', async () => {
    // Nothing listens on this port: the hub's bounded client fails each command at once.
    const redis = new Redis({
      ...boundedRedisOptions(),
      port: await freePort(),
      host: '127.0.0.1',
      retryStrategy: () => null,
    });
    redis.on('error', () => {});
    const errors: unknown[] = [];
    const cache = new DataCache(new RedisCacheStore(redis, 'test:down:', LIMITS), (err) => errors.push(err));
    let loads = 0;
    for (let i = 0; i < 3; i++)
      expect(await cache.getOrLoad('t:k', async () => ++loads, { ttlMs: 60_000 })).toBe(i + 1);
    expect(loads).toBe(3);
    expect(errors.length).toBeGreaterThanOrEqual(3);
    redis.disconnect();
  });
});
