import type { RedisClient } from './redis-connection.js';
import type { Logger } from 'pino';
import type { Clock } from '../../host/clock.js';
import { LogThrottle } from '../../host/log-throttle.js';
import { RecentIdentities, type RedeliveryWindow } from '../../realtime/redelivery-window.js';
import { SeqRefused } from '../../wire/seq-refused.js';
import type { FenceKeyOf } from './redis-ingest-lease.js';

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

/**
 * For the readings of one ingest lease holding (fencing token ARGV[1]; FENCED when KEYS[3] moved
 * on), per reading (ARGV[3…] in threes: identity, device group, seq): 1 when the current or
 * previous bucket holds the identity and its reading reached the cluster, else 0 and the identity
 * remembered in the current bucket as `holding:seq`. An identity an earlier holding remembered
 * reached the cluster when that holding published the group's seq or a later one (KEYS[4], written
 * by the fenced publish: the group's newest holding and the one before it): a holder stopped
 * between this call and its publish hands the reading on nowhere, and its successor must number
 * it. Not found there (two holdings published the group since): numbered again, a copy at worst.
 * Values other than `holding:seq` (unfenced readings) count as reached. KEYS: current bucket,
 * previous bucket, fence, published seqs.
 */
const CONFIRM = `if redis.call('GET', KEYS[3]) ~= ARGV[1] then return redis.error_reply('FENCED') end
local known = {}
for i = 3, #ARGV, 3 do
  local seen = redis.call('HGET', KEYS[1], ARGV[i]) or redis.call('HGET', KEYS[2], ARGV[i])
  local reached = 0
  if seen then
    local holding, seq = string.match(seen, '^(%d+):(%d+)$')
    if holding == nil or holding == ARGV[1] then
      reached = 1
    else
      for _, field in ipairs({ ARGV[i + 1], ARGV[i + 1] .. '<' }) do
        local by, upTo = string.match(redis.call('HGET', KEYS[4], field) or '', '^(%d+):(%d+)$')
        if by == holding and tonumber(upTo) >= tonumber(seq) then reached = 1 end
      end
    end
  end
  if reached == 0 then redis.call('HSET', KEYS[1], ARGV[i], ARGV[1] .. ':' .. ARGV[i + 2]) end
  known[#known + 1] = reached
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return known`;

/** The identities of one holding waiting for this turn's CONFIRM, and its answer. */
interface ConfirmBatch {
  readonly fence: number;
  /** Identity, device group, seq: three arguments per reading. */
  readonly readings: string[];
  readonly answer: Promise<number[]>;
  resolve(known: number[]): void;
  reject(err: Error): void;
}

type WithWindowCommands = RedisClient & {
  confirmIdentities(
    bucket: string,
    previous: string,
    fenceKey: string,
    publishedKey: string,
    fence: string,
    ttlMs: string,
    ...readings: string[]
  ): Promise<number[]>;
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
  /** A reading's ingest lease token key (its partition's); unfenced readings check none. */
  fenceKeyOf: FenceKeyOf;
  /** Each device group's newest seq the lease holders published (`publishedSeqsKey`). */
  publishedKey: string;
  windowMs: number;
  clock: Clock;
  log: Logger;
  /** Identities this instance remembers in memory besides (`RecentIdentities`). */
  maxEntries?: number;
}

/**
 * The cluster's redelivery window (for resendable readings: MQTT QoS 1): each identity goes to a
 * Redis hash per window length of time (kept two lengths), so whichever instance ingests next
 * recognises what an earlier one accepted.
 *
 * A reading of the ingest lease holder (fenced) is asked about and remembered in Redis once its
 * `seq` is settled, under its holding, in one CONFIRM per turn of the event loop (no round trip per
 * reading), before the pipeline hands it on and the source acknowledges it (`confirm`): DUP or
 * not, redelivered by the broker or republished by the device, the successor recognises what its
 * predecessor handed on, and a predecessor that stalled before its CONFIRM is refused and hands
 * nothing on. One that stalled while its CONFIRM was answered hands nothing on either (the
 * pipeline drops a reading whose holding lapsed meanwhile), and its successor, finding the identity
 * under the earlier holding with a seq the cluster was never published, numbers the reading. Other readings (no lease: a device on this instance's embedded broker) are checked
 * in memory, asked about in Redis when the transport marks them as possibly delivered before
 * (MQTT's DUP flag), and remembered in one batch per turn. Redis errors count as "not seen"
 * (logged, throttled).
 */
export class RedisRedeliveryWindow implements RedeliveryWindow {
  readonly #o: RedisRedeliveryWindowOptions;
  readonly #redis: WithWindowCommands;
  readonly #local: RecentIdentities;
  readonly #faults: LogThrottle;
  /** Unfenced identities waiting for this turn's batch. */
  #batch: string[] = [];
  #flushing = false;
  /** Lease holdings' identities waiting for this turn's CONFIRM, per holding (one per ingest partition held). */
  readonly #confirming = new Map<number, ConfirmBatch>();

  constructor(options: RedisRedeliveryWindowOptions) {
    this.#o = options;
    const { redis } = options;
    if (!('rememberIdentities' in redis)) redis.defineCommand('rememberIdentities', { numberOfKeys: 2, lua: REMEMBER });
    if (!('checkIdentity' in redis)) redis.defineCommand('checkIdentity', { numberOfKeys: 3, lua: CHECK });
    if (!('confirmIdentities' in redis)) redis.defineCommand('confirmIdentities', { numberOfKeys: 4, lua: CONFIRM });
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
    // A lease holding's reading is asked about in Redis by `confirm`, DUP or not.
    if (fence !== undefined) return false;
    if (!redelivered) {
      this.#remember(identity);
      return false;
    }
    const bucket = Math.floor(this.#o.clock.now() / this.#o.windowMs);
    return this.#redis
      .checkIdentity(this.#key(bucket), this.#key(bucket - 1), this.#o.fenceKeyOf(0), '', this.#ttl(), identity)
      .then(
        (n) => n === 1,
        (err: Error) => {
          this.#faults.warn({ err: { message: err.message } }, 'redelivery window not read; the reading counts as new');
          return false;
        },
      );
  }

  /**
   * One CONFIRM per turn and holding: the reading is handed on (and acknowledged) only once its
   * identity is in Redis under its holding, so a successor given the same message by the broker
   * recognises it whether the holder stalled before or after. A holder that stalled first is
   * refused here (`SeqRefused`) and hands nothing on: the successor numbers the reading alone.
   */
  confirm(identity: string, fence: number, seq: number, group: string): Promise<boolean> {
    let batch = this.#confirming.get(fence);
    if (batch === undefined) {
      batch = newConfirmBatch(fence);
      this.#confirming.set(fence, batch);
      setImmediate(() => this.#sendConfirm(fence));
    }
    const at = batch.readings.push(identity, group, String(seq)) / 3 - 1;
    return batch.answer.then((known) => known[at] === 1);
  }

  forget(identity: string): void {
    this.#local.forget(identity);
  }

  #sendConfirm(fence: number): void {
    const batch = this.#confirming.get(fence);
    if (batch === undefined) return;
    this.#confirming.delete(fence);
    const bucket = Math.floor(this.#o.clock.now() / this.#o.windowMs);
    this.#redis
      .confirmIdentities(
        this.#key(bucket),
        this.#key(bucket - 1),
        this.#o.fenceKeyOf(fence),
        this.#o.publishedKey,
        String(fence),
        this.#ttl(),
        ...batch.readings,
      )
      .then(batch.resolve, (err: Error) => {
        if (err.message.includes('FENCED')) return batch.reject(new SeqRefused(fence));
        this.#faults.warn({ err: { message: err.message } }, 'redelivery window not read; the reading counts as new');
        batch.resolve([]);
      });
  }

  #remember(identity: string): void {
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
      .rememberIdentities(this.#key(bucket), this.#o.fenceKeyOf(0), '', this.#ttl(), ...batch)
      .catch((err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redelivery window not stored'));
  }

  #key(bucket: number): string {
    return `${this.#o.keyPrefix}${bucket}`;
  }

  #ttl(): string {
    return String(Math.ceil(this.#o.windowMs * 2));
  }
}

function newConfirmBatch(fence: number): ConfirmBatch {
  let resolve!: (known: number[]) => void;
  let reject!: (err: Error) => void;
  const answer = new Promise<number[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { fence, readings: [], answer, resolve, reject };
}
