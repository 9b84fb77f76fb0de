import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../host/clock.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { IngestLease } from './ingest-lease.js';

/** Renews our own lease, or takes a free one; 1 when we hold it afterwards. */
const CLAIM = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;
/** Frees the lease only if it is still ours. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export interface RedisIngestLeaseOptions {
  redis: Redis;
  /** One key per cluster (per hub name). */
  key: string;
  ttlMs: number;
  clock: Clock;
  log: Logger;
  /** Logged with the lease changes, to tell which instance ingests. */
  instanceId: string;
}

/**
 * The ingest lease in Redis: `SET NX PX` with a random token, renewed every third of the TTL by
 * a script that extends it only while the token is still ours. Every instance tries; one holds it.
 * The holder stops counting itself the holder a fifth of the TTL before its last successful renew
 * would expire, whether Redis said no or did not answer, so two instances never ingest at once
 * unless a process stalls longer than that margin. A stopping holder frees the lease, so a standby
 * takes over within one renew interval instead of a TTL.
 */
export class RedisIngestLease implements IngestLease, HostedService {
  readonly name = 'ingest-lease';
  readonly #o: RedisIngestLeaseOptions;
  readonly #token = randomUUID();
  readonly #listeners = new Set<(held: boolean) => void>();
  #held = false;
  #tick: TimerHandle | undefined;
  #expiry: TimerHandle | undefined;
  #stopped = false;
  #claiming: Promise<void> | undefined;

  constructor(options: RedisIngestLeaseOptions) {
    this.#o = options;
  }

  get held(): boolean {
    return this.#held;
  }

  onChange(listener: (held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Makes the first claim (so an instance alone ingests at once when Redis is there), then keeps renewing. */
  async start(): Promise<void> {
    await this.#claim();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#tick !== undefined) this.#o.clock.clearTimeout(this.#tick);
    await this.#claiming;
    const wasHeld = this.#held;
    this.#set(false);
    if (wasHeld) await this.#o.redis.eval(RELEASE, 1, this.#o.key, this.#token).catch(() => undefined);
  }

  #claim(): Promise<void> {
    const { redis, key, ttlMs, clock } = this.#o;
    const askedAt = clock.monotonicNow();
    this.#claiming = (redis.eval(CLAIM, 1, key, this.#token, String(Math.ceil(ttlMs))) as Promise<number>).then(
      (won) => {
        if (this.#stopped) return;
        if (won === 1) this.#holdUntil(askedAt + ttlMs * 0.8 - clock.monotonicNow());
        else this.#set(false);
      },
      // Unanswered: keep what we have; the expiry timer ends it in time.
      () => undefined,
    ).finally(() => {
      if (this.#stopped) return;
      this.#tick = clock.setTimeout(() => void this.#claim(), ttlMs / 3);
      this.#tick.unref?.();
    });
    return this.#claiming;
  }

  #holdUntil(ms: number): void {
    const { clock } = this.#o;
    if (this.#expiry !== undefined) clock.clearTimeout(this.#expiry);
    if (ms <= 0) return this.#set(false);
    this.#expiry = clock.setTimeout(() => this.#set(false), ms);
    this.#expiry.unref?.();
    this.#set(true);
  }

  #set(held: boolean): void {
    if (!held && this.#expiry !== undefined) {
      this.#o.clock.clearTimeout(this.#expiry);
      this.#expiry = undefined;
    }
    if (held === this.#held) return;
    this.#held = held;
    this.#o.log.info({ instanceId: this.#o.instanceId, key: this.#o.key }, held ? 'ingest lease acquired: this instance ingests' : 'ingest lease lost: this instance stops ingesting');
    for (const listener of [...this.#listeners]) listener(held);
  }
}
