import type { RedisClient } from './redis-connection.js';
import type { Logger } from 'pino';
import type { Clock } from '../../host/clock.js';
import { LogThrottle } from '../../host/log-throttle.js';
import { RecentIdentities, type RedeliveryWindow } from '../../realtime/redelivery-window.js';

/**
 * Remembers identities (ARGV[4…]) in the current bucket for twice the window, unless the ingest
 * lease holding ARGV[1] is stale ('' for a reading outside the lease). KEYS: current bucket, fence.
 */
const REMEMBER = `if ARGV[1] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
for i = 3, #ARGV do redis.call('HSET', KEYS[1], ARGV[i], 1) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

/**
 * 1 when ARGV[3] is in the current or the previous bucket; else remembers it (same fence rule
 * as REMEMBER) and returns 0. KEYS: current bucket, previous bucket, fence.
 */
const CHECK = `if redis.call('HEXISTS', KEYS[1], ARGV[3]) == 1 or redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then return 1 end
if ARGV[1] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], ARGV[3], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0`;

type WithWindowCommands = RedisClient & {
  rememberIdentities(
    bucket: string,
    fenceKey: string,
    fence: string,
    ttlMs: string,
    ...identities: string[]
  ): Promise<number>;
  checkIdentity(
    bucket: string,
    previous: string,
    fenceKey: string,
    fence: string,
    ttlMs: string,
    identity: string,
  ): Promise<number>;
};

export interface RedisRedeliveryWindowOptions {
  redis: RedisClient;
  /** Buckets are `{keyPrefix}{n}`, one per window length of wall time. */
  keyPrefix: string;
  fenceKey: string;
  windowMs: number;
  clock: Clock;
  log: Logger;
  /** Identities this instance remembers in memory besides (`RecentIdentities`). */
  maxEntries?: number;
}

/**
 * The cluster's redelivery window (for resendable readings: MQTT QoS 1): each identity goes to a Redis hash per window length
 * of time (kept two lengths), so whichever instance ingests next recognises what an earlier one
 * accepted. Readings the transport marks as possibly delivered before (MQTT's DUP flag) are asked
 * about in Redis, one round trip each: a broker resends exactly those after an ingester crashed or
 * reconnected. Every other reading is checked against this instance's memory only, and remembered
 * in Redis in one batch per turn of the event loop, so the common reading costs no round trip.
 * A device's own republish (a new MQTT message) is recognised by the instance that accepted the
 * first copy, not by its successor. Redis errors count as "not seen" (logged, throttled).
 */
export class RedisRedeliveryWindow implements RedeliveryWindow {
  readonly #o: RedisRedeliveryWindowOptions;
  readonly #redis: WithWindowCommands;
  readonly #local: RecentIdentities;
  readonly #faults: LogThrottle;
  /** Identities waiting for this turn's batch, with the fence they came under. */
  #batch: string[] = [];
  #batchFence = '';
  #flushing = false;

  constructor(options: RedisRedeliveryWindowOptions) {
    this.#o = options;
    const { redis } = options;
    if (!('rememberIdentities' in redis)) redis.defineCommand('rememberIdentities', { numberOfKeys: 2, lua: REMEMBER });
    if (!('checkIdentity' in redis)) redis.defineCommand('checkIdentity', { numberOfKeys: 3, lua: CHECK });
    this.#redis = redis as WithWindowCommands;
    this.#local = new RecentIdentities({
      windowMs: options.windowMs,
      clock: options.clock,
      ...(options.maxEntries ? { maxEntries: options.maxEntries } : {}),
    });
    this.#faults = new LogThrottle(options.log);
  }

  seen(identity: string, redelivered: boolean, fence: number | undefined): boolean | Promise<boolean> {
    if (this.#local.seen(identity)) return true;
    const fenceText = fence === undefined ? '' : String(fence);
    if (!redelivered) {
      this.#remember(identity, fenceText);
      return false;
    }
    const bucket = Math.floor(this.#o.clock.now() / this.#o.windowMs);
    return this.#redis
      .checkIdentity(this.#key(bucket), this.#key(bucket - 1), this.#o.fenceKey, fenceText, this.#ttl(), identity)
      .then(
        (n) => n === 1,
        (err: Error) => {
          this.#faults.warn({ err: { message: err.message } }, 'redelivery window not read; the reading counts as new');
          return false;
        },
      );
  }

  #remember(identity: string, fence: string): void {
    if (fence !== this.#batchFence) this.#flush();
    this.#batchFence = fence;
    this.#batch.push(identity);
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushing = false;
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    const bucket = Math.floor(this.#o.clock.now() / this.#o.windowMs);
    this.#redis
      .rememberIdentities(this.#key(bucket), this.#o.fenceKey, this.#batchFence, this.#ttl(), ...batch)
      .catch((err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redelivery window not stored'));
  }

  #key(bucket: number): string {
    return `${this.#o.keyPrefix}${bucket}`;
  }

  #ttl(): string {
    return String(Math.ceil(this.#o.windowMs * 2));
  }
}
