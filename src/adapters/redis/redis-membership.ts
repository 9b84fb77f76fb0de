import type { Logger } from 'pino';
import type { RedisClient } from './redis-connection.js';

/**
 * Marks ARGV[1] alive at Redis's clock, forgets members not seen for ARGV[2] ms, and counts the
 * rest. Redis's clock, not the instances': their clocks may disagree, a member's age must not.
 */
const BEAT = `local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZADD', KEYS[1], ms, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])`;

export interface RedisMembershipOptions {
  redis: RedisClient;
  /** One sorted set per cluster (per hub name). */
  key: string;
  instanceId: string;
  /** A member that has not beaten for this long is gone (a crashed or paused process). */
  ttlMs: number;
  log: Logger;
}

/**
 * The instances that share ingestion, counted by heartbeat: each beat marks this instance alive
 * and answers how many are. A paused process (SIGSTOP, a long GC) stops beating and stops
 * counting within `ttlMs`, unlike a pub/sub subscriber count, which counts it while its
 * connection stays open; so the others take its share instead of waiting for it.
 */
export class RedisMembership {
  readonly #o: RedisMembershipOptions;

  constructor(options: RedisMembershipOptions) {
    this.#o = options;
  }

  /** Marks this instance alive; resolves to the number of live instances, this one included. */
  async beat(): Promise<number> {
    const { redis, key, instanceId, ttlMs } = this.#o;
    return Number(await redis.eval(BEAT, 1, key, instanceId, String(Math.ceil(ttlMs))));
  }

  /** Leaves at once, so the others take this instance's share without waiting out its beat. */
  async leave(): Promise<void> {
    await this.#o.redis
      .zrem(this.#o.key, this.#o.instanceId)
      .catch((err: Error) => this.#o.log.warn({ err: { message: err.message } }, 'membership not left'));
  }
}
