import { EventEmitter } from 'node:events';
import { Cluster, Redis } from 'ioredis';
import { Backoff } from '../../host/backoff.js';
import { boundedClusterOptions, REDIS_MAX_RECONNECT_DELAY_MS } from './bounded-redis-options.js';
import { redisClient, type RedisClient } from './redis-connection.js';

/**
 * What the backplane and the peer connections use of their subscriber connection: an ioredis
 * client on a single Redis (SUBSCRIBE), a `ShardSubscriber` on a cluster (SSUBSCRIBE).
 */
export interface Subscriber {
  readonly status: string;
  connect(): Promise<void>;
  subscribe(...channels: string[]): Promise<unknown>;
  unsubscribe(...channels: string[]): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: 'ready' | 'close', listener: () => void): this;
  on(event: 'message', listener: (channel: string, text: string) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
}

/** The subscriber for channels of `slotOf`'s slot next to `pub`, the publishing client. */
export function subscriberFor(pub: RedisClient, url: string, slotOf: string): Subscriber {
  return pub instanceof Cluster ? new ShardSubscriber(pub, url, slotOf) : redisClient(url);
}

/** PUBLISH on a single Redis, SPUBLISH (to the channel's shard only) on a cluster. */
export function publishOn(pub: RedisClient, channel: string, text: string): Promise<number> {
  return pub instanceof Cluster ? (pub.spublish(channel, text) as Promise<number>) : pub.publish(channel, text);
}

/**
 * Sharded pub/sub (SSUBSCRIBE) on a Redis Cluster for channels of one slot (a hub's channels,
 * which share its hash tag): one connection to the master serving the slot, found in the
 * cluster client's slot map. When that connection is lost (the master died) or Redis unsubscribed
 * the channels (the slot moved to another master), the slot map is refreshed and a new connection
 * made to whichever master serves the slot now, with backoff until one answers (a failover takes
 * the cluster's node timeout and more);
 * the channels are subscribed on it before `ready` is emitted, every time.
 *
 * Its own connection rather than the cluster client's sharded subscribers: there a subscription
 * made while a shard connection was being set up could be lost without a word, and the backplane
 * must know it is subscribed to answer the readiness check truthfully.
 *
 * The events and methods the backplane uses of an ioredis subscriber: `ready`, `close`,
 * `message` (channel, text), `error`; `status` is `ready` while subscribed.
 */
export class ShardSubscriber extends EventEmitter implements Subscriber {
  readonly #cluster: Cluster;
  readonly #url: string;
  readonly #slotOf: string;
  /** Asked of the cluster at the first connection. */
  #slot: number | undefined;
  readonly #channels = new Set<string>();
  readonly #backoff = new Backoff(200, REDIS_MAX_RECONNECT_DELAY_MS);
  #connection: Redis | undefined;
  #subscribed = false;
  #retry: NodeJS.Timeout | undefined;
  #attempting: Promise<void> | undefined;
  #closing = false;

  /** `url`: `ConnectionStrings:redis`, for its credentials and TLS; `slotOf`: any channel of the slot. */
  constructor(cluster: Cluster, url: string, slotOf: string) {
    super();
    this.#cluster = cluster;
    this.#url = url;
    this.#slotOf = slotOf;
    // The cluster client (re)connected: a subscriber that could not find its node tries now.
    cluster.on('ready', () => {
      if (!this.#closing && this.#connection === undefined) this.#attempt().catch(() => undefined);
    });
  }

  get status(): string {
    if (this.#closing) return 'end';
    return this.#subscribed ? 'ready' : (this.#connection?.status ?? 'wait');
  }

  /** One attempt (the cluster client connected first); on failure it keeps trying in the background and rejects. */
  async connect(): Promise<void> {
    this.#closing = false;
    await this.#attempt();
  }

  /** Channels must be of this subscriber's slot. Subscribed now when connected, else on the next connection. */
  async subscribe(...channels: string[]): Promise<void> {
    for (const channel of channels) this.#channels.add(channel);
    if (this.#connection?.status === 'ready') await this.#connection.ssubscribe(...channels);
  }

  async unsubscribe(...channels: string[]): Promise<void> {
    for (const channel of channels) this.#channels.delete(channel);
    if (this.#connection?.status === 'ready') await this.#connection.sunsubscribe(...channels);
  }

  /** How many connections hold `channel` (of this slot) on the master serving it now. */
  async subscribers(channel: string): Promise<number> {
    const [, count] = (await this.#master().pubsub('SHARDNUMSUB', channel)) as [string, number];
    return Number(count);
  }

  async quit(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#retry);
    const connection = this.#connection;
    this.#connection = undefined;
    this.#subscribed = false;
    if (connection?.status === 'ready') await connection.quit().catch(() => connection.disconnect());
    else connection?.disconnect();
  }

  disconnect(): void {
    void this.quit();
  }

  /** The master serving the slot, in the cluster client's slot map. */
  #master(): Redis {
    const key = this.#slot === undefined ? undefined : this.#cluster.slots[this.#slot]?.[0];
    const master = this.#cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === key);
    if (master === undefined) throw new Error(`no master known for slot ${this.#slot}`);
    return master;
  }

  #attempt(): Promise<void> {
    this.#attempting ??= this.#connectOnce().finally(() => (this.#attempting = undefined));
    return this.#attempting;
  }

  async #connectOnce(): Promise<void> {
    try {
      if (this.#cluster.status !== 'ready') throw new Error(`redis cluster not connected (${this.#cluster.status})`);
      this.#slot ??= await this.#cluster.cluster('KEYSLOT', this.#slotOf);
      await this.#refreshSlots();
      const { host, port } = this.#master().options;
      const connection = new Redis({
        ...boundedClusterOptions(this.#url).redisOptions,
        host,
        port,
        lazyConnect: true,
        // A lost connection is replaced by one to the slot's master then, which may be another node.
        retryStrategy: () => null,
        autoResubscribe: false,
      });
      this.#connection = connection;
      connection.on('error', (err: Error) => {
        // Redis unsubscribes a slot's shard channels itself when the slot moves to another master
        // (resharding, a master turned replica); ioredis reports that reply nobody asked for as an
        // error. The subscription is gone: a new connection to the slot's master takes it up.
        if (err.message.includes('Last reply: sunsubscribe')) connection.disconnect();
        this.emit('error', err);
      });
      connection.on('smessage', (channel: string, text: string) => this.emit('message', channel, text));
      connection.once('close', () => this.#lost(connection));
      await connection.connect();
      // In the turn connect resolved in: a `subscribe` from now on goes to this connection itself.
      if (this.#channels.size > 0) await connection.ssubscribe(...this.#channels);
      if (this.#connection !== connection) return;
      this.#subscribed = true;
      this.#backoff.reset();
      this.emit('ready');
    } catch (err) {
      const connection = this.#connection;
      this.#connection = undefined;
      connection?.disconnect();
      if (!this.#closing) this.#scheduleRetry();
      throw err;
    }
  }

  #lost(connection: Redis): void {
    if (this.#connection !== connection) return;
    const wasSubscribed = this.#subscribed;
    this.#subscribed = false;
    this.#connection = undefined;
    if (wasSubscribed) this.emit('close');
    if (!this.#closing) this.#scheduleRetry();
  }

  #scheduleRetry(): void {
    clearTimeout(this.#retry);
    this.#retry = setTimeout(() => {
      if (!this.#closing) this.#attempt().catch((err: Error) => this.emit('error', err));
    }, this.#backoff.next());
    this.#retry.unref?.();
  }

  /** Asks a node for the slot map: after a failover the replica that took over serves the slot. */
  #refreshSlots(): Promise<void> {
    return new Promise((resolve, reject) => this.#cluster.refreshSlotsCache((err) => (err ? reject(err) : resolve())));
  }
}
