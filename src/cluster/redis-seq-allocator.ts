import type { Redis } from 'ioredis';
import type { SeqAllocator } from '../ingest/seq-allocator.js';

/**
 * The next seq, never at or below the caller's floor: after Redis lost its data (a restart
 * without persistence) or while it was away (the ingester counted locally), the counter moves up
 * to what was already handed out instead of repeating it.
 */
const NEXT = `local n = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local floor = tonumber(ARGV[2])
if n <= floor then
  n = floor + 1
  redis.call('HSET', KEYS[1], ARGV[1], n)
end
return n`;

type WithNextSeq = Redis & { nextSeq(key: string, deviceId: string, floor: string): Promise<number> };

/**
 * Each device's `seq` from a counter in Redis, one hash per tenant (bounded as the tenant's
 * devices are: the pipeline asks only for devices the registry has room for). Calls are
 * auto-pipelined on the cluster's connection, whose replies come in the order asked.
 */
export class RedisSeqAllocator implements SeqAllocator {
  readonly #redis: WithNextSeq;
  readonly #prefix: string;

  constructor(redis: Redis, options: { keyPrefix: string }) {
    if (!('nextSeq' in redis)) redis.defineCommand('nextSeq', { numberOfKeys: 1, lua: NEXT });
    this.#redis = redis as WithNextSeq;
    this.#prefix = options.keyPrefix;
  }

  next(tenantId: string, deviceId: string, floor: number): Promise<number> {
    return this.#redis.nextSeq(`${this.#prefix}${tenantId}`, deviceId, String(floor));
  }
}
