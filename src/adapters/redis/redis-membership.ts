import type { Logger } from 'pino';
import type { Membership } from '../../realtime/partition-balancer.js';
import type { RedisClient } from './redis-connection.js';

/**
 * Marks ARGV[1] alive at Redis's clock, forgets members not seen for ARGV[2] ms, and returns the
 * rest. Redis's clock, not the instances': their clocks may disagree, a member's age must not.
 */
const BEAT = `local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZADD', KEYS[1], ms, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ms - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZRANGE', KEYS[1], 0, -1)`;

export interface RedisMembershipOptions {
  redis: RedisClient;
  /** One sorted set per cluster and partition count: instances standing by with another count are not members. */
  key: string;
  instanceId: string;
  /** A member that has not beaten for this long is gone (a crashed or paused process). */
  ttlMs: number;
  log: Logger;
}

/**
 * The instances that share ingestion, known by heartbeat: each beat marks this instance alive and
 * answers which are. A paused process (SIGSTOP, a long GC) stops beating and stops counting within
 * `ttlMs`, unlike a pub/sub subscriber count, which counts it while its connection stays open; so
 * the others take its share instead of waiting for it.
 */
export class RedisMembership implements Membership {
  readonly #o: RedisMembershipOptions;

  constructor(options: RedisMembershipOptions) {
    this.#o = options;
  }

  get id(): string {
    return this.#o.instanceId;
  }

  async beat(): Promise<readonly string[]> {
    const { redis, key, instanceId, ttlMs } = this.#o;
    return (await redis.eval(BEAT, 1, key, instanceId, String(Math.ceil(ttlMs)))) as string[];
  }

  async leave(): Promise<void> {
    await this.#o.redis
      .zrem(this.#o.key, this.#o.instanceId)
      .catch((err: Error) => this.#o.log.warn({ err: { message: err.message } }, 'membership not left'));
  }
}
