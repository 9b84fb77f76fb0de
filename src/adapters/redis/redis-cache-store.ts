import type { RedisClient } from './redis-connection.js';
import type { CacheStore, CacheStoreLimits } from '../../features/cache/cache-store.js';

// Entries are `{prefix}e:{key}` with a PX expiry; `{prefix}idx` orders keys by when they were set
// (a counter, not the clock, so instances with skewed clocks agree), and the oldest go once there
// are more than maxEntries; `{prefix}t:{tag}` lists the keys stored with a tag. One script per
// operation keeps the index and the tags consistent with the entries under concurrent instances.
const SET = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local n = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], n, ARGV[5])
for i = 6, #ARGV do
  local t = ARGV[4] .. 't:' .. ARGV[i]
  redis.call('SADD', t, ARGV[5])
  if redis.call('PTTL', t) < tonumber(ARGV[2]) then redis.call('PEXPIRE', t, ARGV[2]) end
end
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local old = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #old, 2 do redis.call('DEL', ARGV[4] .. 'e:' .. old[i]) end
end
return 1`;

const EVICT_TAG = `
local keys = redis.call('SMEMBERS', KEYS[1])
for _, k in ipairs(keys) do
  redis.call('DEL', ARGV[1] .. 'e:' .. k)
  redis.call('ZREM', KEYS[2], k)
end
redis.call('DEL', KEYS[1])
return #keys`;

const DELETE = `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1`;

/**
 * The CacheStore shared by every instance on one Redis. The client is the caller's (one for all
 * caches, with the hub's bounded options: no offline queue, a timeout per command), so a Redis
 * that is down makes each call fail at once, which the caches treat as a miss.
 */
export class RedisCacheStore implements CacheStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #limits: CacheStoreLimits;

  /** `prefix` names this cache's keys, e.g. `telemetry-hub:output-cache:`. */
  constructor(redis: RedisClient, prefix: string, limits: CacheStoreLimits) {
    this.#redis = redis;
    this.#prefix = prefix;
    this.#limits = limits;
  }

  async get(key: string): Promise<Buffer | undefined> {
    return (await this.#redis.getBuffer(this.#prefix + 'e:' + key)) ?? undefined;
  }

  async set(key: string, value: Buffer, ttlMs: number, tags: readonly string[] = []): Promise<void> {
    const ttl = Math.ceil(ttlMs);
    if (value.length > this.#limits.maxEntryBytes || ttl <= 0) {
      await this.delete(key);
      return;
    }
    const p = this.#prefix;
    await this.#redis.eval(
      SET,
      3,
      p + 'e:' + key,
      p + 'idx',
      p + 'seq',
      value,
      ttl,
      this.#limits.maxEntries,
      p,
      key,
      ...tags,
    );
  }

  async delete(key: string): Promise<void> {
    await this.#redis.eval(DELETE, 2, this.#prefix + 'e:' + key, this.#prefix + 'idx', key);
  }

  async evictTag(tag: string): Promise<void> {
    await this.#redis.eval(EVICT_TAG, 2, this.#prefix + 't:' + tag, this.#prefix + 'idx', this.#prefix);
  }

  async close(): Promise<void> {
    // The client belongs to whoever built the store.
  }
}
