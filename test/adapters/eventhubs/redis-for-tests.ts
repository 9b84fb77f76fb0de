import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { it } from 'vitest';
import { RedisCheckpointStore } from '../../../src/adapters/redis/redis-checkpoint-store.js';
import type { StoreUnderTest } from '../../realtime/checkpoint-store.case.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A client that fails fast instead of queueing commands while Redis is away. */
export function testRedis(): Redis {
  return new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
}

export async function redisReachable(): Promise<boolean> {
  const redis = testRedis();
  // The failed connect rejects below; without a listener ioredis also reports it as unhandled.
  redis.on('error', () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * Whether Redis answers. When it does not, registers one test saying why: skipped locally, failing on CI
 * (`CI=true`), where a missing Redis must not silently shrink coverage.
 */
export async function redisOrReport(what: string): Promise<boolean> {
  if (await redisReachable()) return true;
  const reason = `Redis at ${REDIS_URL} is unreachable`;
  if (process.env.CI === 'true') {
    it(`${what}: needs Redis (CI=true)`, () => {
      throw new Error(`${reason}; CI requires it`);
    });
  } else {
    it.skip(`${what}: skipped, ${reason} (start Redis to run; on CI this fails)`, () => {});
  }
  return false;
}

/** A key prefix unique to this test run, and a way to delete everything under it. */
export function uniquePrefix(): string {
  return `test:eventhubs:${randomUUID()}:`;
}

export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  const keys: string[] = [];
  for await (const batch of redis.scanStream({ match: `${prefix}*`, count: 100 })) keys.push(...(batch as string[]));
  if (keys.length > 0) await redis.del(...keys);
}

/** A RedisCheckpointStore on its own client and key prefix; `dispose` deletes its keys and disconnects. */
export async function redisStoreUnderTest(): Promise<StoreUnderTest> {
  const redis = testRedis();
  await redis.connect();
  const keyPrefix = uniquePrefix();
  return {
    store: new RedisCheckpointStore(redis, { keyPrefix }),
    async dispose() {
      await deleteKeys(redis, keyPrefix);
      await redis.quit();
    },
  };
}
