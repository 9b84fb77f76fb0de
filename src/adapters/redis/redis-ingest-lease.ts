import { randomUUID } from 'node:crypto';
import type { RedisClient } from './redis-connection.js';
import { hubKeyPrefix } from './hub-key-prefix.js';
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../host/clock.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import type { IngestLease } from '../../realtime/ingest-lease.js';
import { partitionOfFence } from '../../realtime/ingest-partitions.js';

/**
 * Renews our own lease, or takes a free one and raises the fencing token (KEYS[2], never
 * expires); the token when we hold the lease afterwards, 0 when another instance does. ARGV[3]
 * '1': we stopped counting ourselves the holder since (our clock ran out first), so a lease still
 * ours in Redis starts a new holding too: what the old holding dropped when it lapsed must not
 * count as its own (the redelivery window takes an identity remembered under this holding as
 * handed on).
 *
 * Partition ARGV[5] of ARGV[4] raises its token to the next number ≡ ARGV[5] (mod ARGV[4]), so a
 * token names its partition (one partition: plain INCR). A token counter Redis lost (a restart
 * without its data) starts again from Redis's clock in milliseconds times ARGV[4], not from 1:
 * above every token handed out before the loss (those were raised once per holding from an
 * earlier such start), so no new holding gets the token of an old one and an ingester's seq
 * blocks from before the loss are never taken for its new holding's.
 *
 * KEYS[3] holds the partition count the cluster's lease holders run with, renewed with their
 * leases: while holders with another count are alive (a rolling change of
 * `Cluster:IngestPartitions`, or instances that disagree), -1 and no claim, since the two counts
 * would put a device in two partitions, ingested twice. ARGV[6] '1' (a partition of several):
 * likewise while KEYS[4], the single lease, is held, by a version that knows no partition count.
 */
const CLAIM = `local counted = redis.call('GET', KEYS[3])
if counted and counted ~= ARGV[4] then return -1 end
if ARGV[6] == '1' and redis.call('EXISTS', KEYS[4]) == 1 then return -1 end
redis.call('SET', KEYS[3], ARGV[4], 'PX', ARGV[2])
local step = tonumber(ARGV[4])
local offset = tonumber(ARGV[5])
local function raise()
  local current = tonumber(redis.call('GET', KEYS[2]) or '0')
  local n = (math.floor(current / step) + 1) * step + offset
  redis.call('SET', KEYS[2], string.format('%d', n))
  return n
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  if ARGV[3] == '1' then return raise() end
  return tonumber(redis.call('GET', KEYS[2]) or '0')
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if redis.call('EXISTS', KEYS[2]) == 0 then
    local now = redis.call('TIME')
    local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    redis.call('SET', KEYS[2], string.format('%d', ms * step))
  end
  return raise()
end
return 0`;
/** Frees the lease only if it is still ours. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * The key of a hub name's ingest lease: one per partition (`ingest-lease:p{i}`), or `ingest-lease`
 * when the broker's devices are not partitioned (`Cluster:IngestPartitions` 1).
 */
export function ingestLeaseKey(hubName: string, cluster = false, partition = 0, partitions = 1): string {
  return `${hubKeyPrefix(hubName, cluster)}ingest-lease${partitionSuffix(partition, partitions, ':')}`;
}

/**
 * What names partition `partition` of `partitions` in its lease's keys and its broker session's
 * client id: nothing for the single lease; the count too otherwise, so a cluster that changes its
 * count starts with keys and sessions of its own, not another count's tokens and queued readings.
 */
export function partitionSuffix(partition: number, partitions: number, separator: string): string {
  return partitions > 1 ? `${separator}p${partition}of${partitions}` : '';
}

/** The fencing token of a hub name's ingest lease (of one partition), which the fenced writes of its ingester check. */
export function ingestFenceKey(hubName: string, cluster = false, partition = 0, partitions = 1): string {
  return `${ingestLeaseKey(hubName, cluster, partition, partitions)}:fence`;
}

/** The partition count the cluster's ingest lease holders run with (see CLAIM). */
export function ingestPartitionsKey(hubName: string, cluster = false): string {
  return `${ingestLeaseKey(hubName, cluster)}:partitions`;
}

/** The fencing token's key for a reading's token (`RawReading.fence`): its partition's. */
export type FenceKeyOf = (fence: number) => string;

/** Every partition's fencing token key, found by a token (`partitionOfFence`). */
export function ingestFenceKeys(hubName: string, cluster = false, partitions = 1): FenceKeyOf {
  const keys = Array.from({ length: partitions }, (_, i) => ingestFenceKey(hubName, cluster, i, partitions));
  return (fence) => keys[partitionOfFence(fence, partitions)]!;
}

/**
 * Each device group's newest seq a lease holder published, written by the fenced publish itself:
 * the redelivery window tells from it whether an earlier holding's reading reached the cluster.
 */
export function publishedSeqsKey(hubName: string, cluster = false): string {
  return `${hubKeyPrefix(hubName, cluster)}published-seqs`;
}

export interface RedisIngestLeaseOptions {
  redis: RedisClient;
  /** One key per cluster (per hub name). */
  key: string;
  /** The fencing token's key: raised at every acquisition, checked by every fenced write. */
  fenceKey: string;
  ttlMs: number;
  clock: Clock;
  log: Logger;
  /** Logged with the lease changes, to tell which instance ingests. */
  instanceId: string;
  /** The ingest partition this lease is for (default: the only one, 0 of 1); its tokens are ≡ index (mod count). */
  partition?: { index: number; count: number };
  /**
   * Where the lease holders' partition count lives (`ingestPartitionsKey`); default `{key}:partitions`.
   * A lease is not claimed while holders with another count are alive.
   */
  countKey?: string;
  /**
   * Asked before claiming the lease while not holding it: undefined leaves it to other instances
   * (a balancer's share is full), else called once the claim was answered. Unset: always claim.
   */
  claimSlot?: () => (() => void) | undefined;
  /** The single lease's key, which a partition's claim waits on while it is held (`ingestLeaseKey` with one partition). */
  singleKey?: string;
}

/**
 * The ingest lease in Redis: `SET NX PX` with a random token, renewed every third of the TTL by
 * a script that extends it only while the token is still ours. Every instance tries; one holds it.
 * The holder stops counting itself the holder a fifth of the TTL before its last successful renew
 * would expire, whether Redis said no or did not answer, so two instances never ingest at once
 * unless a process stalls longer than that margin. A stopping holder frees the lease, so a standby
 * takes over within one renew interval instead of a TTL.
 *
 * Every acquisition raises a fencing token (`fence`). The writes an ingester makes in Redis (seq
 * blocks, last values, the readings it publishes) carry it and are refused once the token moved
 * on, so a holder that stalled past its lease (a paused process, a long GC) and wakes up numbers
 * and publishes nothing after its successor began. `held` itself is read against the monotonic
 * clock, not only flipped by a timer, since a process that wakes from a pause may handle socket
 * data before its timers.
 */
export class RedisIngestLease implements IngestLease, HostedService {
  readonly name = 'ingest-lease';
  readonly #o: RedisIngestLeaseOptions;
  readonly #token = randomUUID();
  readonly #listeners = new Set<(held: boolean) => void | Promise<void>>();
  #held = false;
  #fence: number | undefined;
  /** Monotonic ms until which the holding counts, a fifth of the TTL before Redis drops it. */
  #validUntil = 0;
  #tick: TimerHandle | undefined;
  #expiry: TimerHandle | undefined;
  #stopped = false;
  /** Between a release's start and its RELEASE: no claim (see release). */
  #releasing = false;
  #claiming: Promise<void> | undefined;
  /** Raised each time a holding ends: a claim answered after one ended knows it. */
  #ended = 0;

  constructor(options: RedisIngestLeaseOptions) {
    this.#o = options;
  }

  get held(): boolean {
    return this.#held && this.#o.clock.monotonicNow() < this.#validUntil;
  }

  get fence(): number | undefined {
    return this.held ? this.#fence : undefined;
  }

  onChange(listener: (held: boolean) => void | Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Makes the first claim (so an instance alone ingests at once when Redis is there), then keeps renewing. */
  async start(): Promise<void> {
    this.#o.redis.on('close', this.#connectionLost);
    await this.#claim();
  }

  /** The ingest partition this lease is for. */
  get partition(): number {
    return this.#o.partition?.index ?? 0;
  }

  /**
   * Hands the lease on: this instance stops ingesting under it now and frees it in Redis, so
   * another instance's next claim takes it. Claims again only once `wants` says so.
   */
  async release(): Promise<void> {
    if (!this.#held) return;
    // Freed only once the source stopped (its acknowledgements sent, its session closed), so the
    // next holder's connection does not meet this one's still open on the same client id. Not
    // longer than a lease term: past it the lease runs out anyway.
    // No claim meanwhile: the key still holds our token, and a claim would renew it as a new
    // holding that the RELEASE below then deletes from under it.
    this.#releasing = true;
    const stopped = this.#set(false);
    let timer: TimerHandle | undefined;
    try {
      await Promise.race([
        stopped,
        new Promise<void>((resolve) => {
          timer = this.#o.clock.setTimeout(resolve, this.#o.ttlMs);
        }),
      ]);
      if (timer !== undefined) this.#o.clock.clearTimeout(timer);
      await this.#o.redis.eval(RELEASE, 1, this.#o.key, this.#token).catch(() => undefined);
    } finally {
      this.#releasing = false;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#o.redis.off('close', this.#connectionLost);
    if (this.#tick !== undefined) this.#o.clock.clearTimeout(this.#tick);
    await this.#claiming;
    const wasHeld = this.#held;
    void this.#set(false);
    if (wasHeld) await this.#o.redis.eval(RELEASE, 1, this.#o.key, this.#token).catch(() => undefined);
  }

  /**
   * A Redis that went away may come back without its data, the lease and the fencing token with
   * it; readings taken meanwhile would be numbered from our blocks and then refused by every
   * fenced write, after the broker had them acknowledged. So the holding ends with the
   * connection: the broker keeps the readings until a claim on the reconnected Redis succeeds.
   */
  readonly #connectionLost = (): void => {
    if (this.#held) void this.#set(false);
  };

  #claim(): Promise<void> {
    const { redis, key, fenceKey, ttlMs, clock } = this.#o;
    if (this.#stopped) return Promise.resolve();
    // Releasing (see release), or another instance's turn by the balancer's share: ask again later.
    const answered = this.#releasing || this.held || this.#o.claimSlot === undefined ? undefined : this.#o.claimSlot();
    if (this.#releasing || (!this.held && this.#o.claimSlot !== undefined && answered === undefined)) {
      this.#claiming = undefined;
      this.#tick = clock.setTimeout(() => void this.#claim(), ttlMs / 3);
      this.#tick.unref?.();
      return Promise.resolve();
    }
    const { index, count } = this.#o.partition ?? { index: 0, count: 1 };
    const askedAt = clock.monotonicNow();
    const fresh = this.held ? '0' : '1';
    const endedBefore = this.#ended;
    let again = false;
    this.#claiming = (
      redis.eval(
        CLAIM,
        4,
        key,
        fenceKey,
        this.#o.countKey ?? `${key}:partitions`,
        this.#o.singleKey ?? key,
        this.#token,
        String(Math.ceil(ttlMs)),
        fresh,
        String(count),
        String(index),
        count > 1 && this.#o.singleKey !== undefined ? '1' : '0',
      ) as Promise<number>
    )
      .then(
        (fence) => {
          if (this.#stopped) return;
          if (fence > 0 && fence === this.#fence && (this.#ended !== endedBefore || !this.held)) {
            // A renewal answered after our clock ran out: that holding is over (what it had not
            // handed on was dropped as fenced), so the lease, still ours in Redis, starts a new one.
            void this.#set(false);
            again = true;
          } else if (fence > 0) {
            // A new token while we thought we held: someone held it between (we stalled), so ours
            // starts over as a new holding.
            if (this.#fence !== undefined && this.#fence !== fence) void this.#set(false);
            this.#fence = fence;
            this.#holdUntil(askedAt + ttlMs * 0.8);
          } else {
            if (fence === -1) this.#countDiffers();
            void this.#set(false);
          }
        },
        // Unanswered: keep what we have; the expiry timer ends it in time.
        () => undefined,
      )
      .finally(() => {
        answered?.();
        if (this.#stopped) return;
        this.#tick = clock.setTimeout(() => void this.#claim(), again ? 0 : ttlMs / 3);
        this.#tick.unref?.();
      });
    return this.#claiming;
  }

  #countWarned = false;

  /** Once per process: the reason this instance ingests nothing is a configuration, not a race. */
  #countDiffers(): void {
    if (this.#countWarned) return;
    this.#countWarned = true;
    this.#o.log.warn(
      { instanceId: this.#o.instanceId, partitions: this.#o.partition?.count ?? 1 },
      'ingest lease not claimed: the instances ingesting now run with another Cluster:IngestPartitions; this one stands by until they stop',
    );
  }

  /** `until`: monotonic ms. */
  #holdUntil(until: number): void {
    const { clock } = this.#o;
    if (this.#expiry !== undefined) clock.clearTimeout(this.#expiry);
    const ms = until - clock.monotonicNow();
    if (ms <= 0) return void this.#set(false);
    this.#validUntil = until;
    this.#expiry = clock.setTimeout(() => void this.#set(false), ms);
    this.#expiry.unref?.();
    void this.#set(true);
  }

  /** Resolves once the listeners' work for the change ended (a source stopping). */
  #set(held: boolean): Promise<void> {
    if (!held && this.#expiry !== undefined) {
      this.#o.clock.clearTimeout(this.#expiry);
      this.#expiry = undefined;
    }
    if (held === this.#held) return Promise.resolve();
    this.#held = held;
    if (!held) this.#ended++;
    if (!held) this.#validUntil = 0;
    this.#o.log.info(
      { instanceId: this.#o.instanceId, key: this.#o.key, fence: this.#fence },
      held ? 'ingest lease acquired: this instance ingests' : 'ingest lease lost: this instance stops ingesting',
    );
    const work = [...this.#listeners].map((listener) => listener(held));
    return Promise.all(work).then(() => undefined);
  }
}
