import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { LogThrottle } from '../../host/log-throttle.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import type { Backplane } from '../../realtime/backplane.js';
import type { BackplaneEnvelope } from '../../wire/backplane-codec.js';
import { decodeBackplaneWire, encodeBackplaneWire, type BackplaneWire } from '../../wire/backplane-codec.js';
import { anyRedisClient, type RedisClient } from './redis-connection.js';
import { hubKeyPrefix } from './hub-key-prefix.js';
import { ingestFenceKeys, publishedSeqsKey } from './redis-ingest-lease.js';
import { FencedPublisher } from './fenced-publisher.js';
import { publishOn, ShardSubscriber, subscriberFor, type Subscriber } from './shard-subscriber.js';

/**
 * What went wrong on the backplane, counted for telemetry: a connection error, a publish dropped
 * while disconnected, a publish or a (un)subscribe Redis failed, a message that did not decode.
 */
export const BACKPLANE_ERRORS = ['connection', 'not_connected', 'publish', 'subscribe', 'malformed'] as const;
export type BackplaneError = (typeof BACKPLANE_ERRORS)[number];

/**
 * Scale-out over Redis pub/sub: each node publishes what its hub sends and delivers what the other
 * nodes published. A group's envelopes go to a channel of its own, which a node subscribes to
 * while it has members of the group (socket.io's sharded adapter does the same), so an instance
 * without subscribers of a device never receives its readings; sends to all, to a user or to a
 * connection go to one channel per hub name that every node subscribes to. Also a hosted service whose start does not wait for
 * Redis: an unreachable Redis leaves the instance serving its own clients and unready (`healthy()`),
 * and the clients keep reconnecting, so cross-instance delivery starts or resumes by itself.
 */
export class RedisBackplane implements Backplane, HostedService {
  readonly name = 'redis-backplane';
  readonly #pub: RedisClient;
  readonly #sub: Subscriber;
  readonly #channel: string;
  readonly #groupPrefix: string;
  /** Groups with local members: their channels are subscribed on every (re)connection. */
  readonly #watched = new Set<string>();
  readonly #node = randomUUID();
  readonly #log: Logger;
  /** Failures repeat per publish and per reconnect while Redis is away: a few lines, not one each. */
  readonly #faults: LogThrottle;
  readonly #handlers: ((envelope: BackplaneEnvelope) => void)[] = [];
  readonly #errors = new Map<BackplaneError, number>(BACKPLANE_ERRORS.map((e) => [e, 0]));
  /** Redis acknowledged the channel subscription on the subscriber's current connection. */
  #subscribed = false;
  /** The subscription was lost and is not back yet: envelopes published meanwhile never came. */
  #lost = false;
  readonly #onResubscribe: ((groups: readonly string[]) => () => void)[] = [];
  #subscribing: Promise<void> | undefined;
  #closing = false;

  /** The ingest lease's fencing token: fenced envelopes are published only while it is theirs. */
  readonly #fenced: FencedPublisher;

  /**
   * `cluster`: `url` names a node of a Redis Cluster; the hub's channels then share its slot (a
   * hash tag) and go over sharded pub/sub, so each message reaches only the shard serving them.
   */
  constructor(options: {
    url: string;
    hubName: string;
    log: Logger;
    cluster?: boolean;
    /** `Cluster:IngestPartitions`: a fenced envelope's token is checked against its partition's. */
    ingestPartitions?: number;
  }) {
    const cluster = options.cluster ?? false;
    const prefix = hubKeyPrefix(options.hubName, cluster);
    this.#channel = `${prefix}backplane`;
    this.#groupPrefix = `${prefix}group:`;
    // Not auto-pipelined: the lease holder's readings already leave in one script call per batch,
    // and that call must be written before the batch's acknowledgements go to the broker, not a
    // tick after them.
    this.#pub = anyRedisClient(options.url, cluster);
    this.#sub = subscriberFor(this.#pub, options.url, this.#channel);
    this.#fenced = new FencedPublisher(this.#pub, {
      cluster,
      fenceKeyOf: ingestFenceKeys(options.hubName, cluster, options.ingestPartitions ?? 1),
      publishedKey: publishedSeqsKey(options.hubName, cluster),
      outcome: (o) => {
        if ('error' in o) this.#fault('publish', o.error, 'backplane publish failed');
        else if (!o.sent)
          this.#faults.warn(
            { fence: o.fence, count: o.count },
            'readings not published: their ingest lease holding is over (fenced)',
          );
      },
    });
    this.#log = options.log;
    this.#faults = new LogThrottle(options.log);
    const onError = (err: Error) => this.#fault('connection', err, 'redis error');
    this.#pub.on('error', onError);
    this.#sub.on('error', onError);
    this.#sub.on('message', (_channel: string, text: string) => this.#receive(text));
    // Every (re)connection subscribes: the first one may come long after start, and a subscription
    // repeated after ioredis' own resubscribe is harmless.
    this.#sub.on('ready', () => this.#subscribe());
    this.#sub.on('close', () => {
      if (this.#subscribed && !this.#closing) {
        this.#log.warn({ channel: this.#channel }, 'redis backplane unsubscribed: connection lost');
        this.#lost = true;
      }
      this.#subscribed = false;
    });
  }

  /**
   * For a subscription that was lost (the connection dropped, Redis restarted): what other
   * instances published to the watched groups until it is back never arrives. `handler` is called
   * as it is being restored, with those groups, before any envelope of the new subscription can
   * arrive; the function it returns, once it is restored (from then on every envelope arrives).
   */
  onResubscribe(handler: (groups: readonly string[]) => () => void): void {
    this.#onResubscribe.push(handler);
  }

  /**
   * Waits for the first attempt only: subscribed when Redis is there, else a warning and ioredis'
   * reconnect loop retries (the readiness check says unready meanwhile). Never fails.
   */
  async start(): Promise<void> {
    try {
      // A shard subscriber finds its node through the cluster client: it connects after it.
      if (this.#sub instanceof ShardSubscriber) {
        await this.#pub.connect();
        await this.#sub.connect();
      } else await Promise.all([this.#pub.connect(), this.#sub.connect()]);
      await this.#subscribing;
    } catch (err) {
      this.#log.warn(
        { err: { message: (err as Error).message }, channel: this.#channel },
        'redis not reachable at start; serving locally and retrying',
      );
    }
  }

  async stop(): Promise<void> {
    await this.close();
  }

  publish(envelope: BackplaneEnvelope, fence?: number): void {
    // Not connected: the message is lost for other instances (as on a broken connection) and
    // costs neither memory nor an encoding.
    if (this.#pub.status !== 'ready') {
      this.#count('not_connected');
      this.#faults.warn({ status: this.#pub.status }, 'backplane publish dropped: redis not connected');
      return;
    }
    const channel = envelope.kind === 'group' ? this.#groupPrefix + envelope.group : this.#channel;
    const text = encodeBackplaneWire({ node: this.#node, envelope });
    if (fence === undefined) {
      publishOn(this.#pub, channel, text).catch((err: Error) =>
        this.#fault('publish', err, 'backplane publish failed'),
      );
      return;
    }
    const seq =
      envelope.kind === 'group' && envelope.message.kind === 'reading'
        ? (envelope.message.data as { seq?: unknown } | null)?.seq
        : undefined;
    if (typeof seq === 'number')
      this.#fenced.publish(fence, channel, text, (envelope as { group: string }).group, String(seq));
    else this.#fenced.publish(fence, channel, text, '', '');
  }

  onMessage(handler: (envelope: BackplaneEnvelope) => void): void {
    this.#handlers.push(handler);
  }

  watch(group: string): Promise<void> {
    this.#watched.add(group);
    // Not connected: the next connection subscribes it with the rest.
    if (this.#sub.status !== 'ready') return Promise.resolve();
    return this.#sub.subscribe(this.#groupPrefix + group).then(
      () => undefined,
      (err: Error) => this.#fault('subscribe', err, 'redis backplane group subscribe failed'),
    );
  }

  unwatch(group: string): void {
    if (!this.#watched.delete(group) || this.#sub.status !== 'ready') return;
    this.#sub
      .unsubscribe(this.#groupPrefix + group)
      .catch((err: Error) => this.#fault('subscribe', err, 'redis backplane group unsubscribe failed'));
  }

  /** Errors so far by kind, every kind present (0 until it happens). */
  get errors(): ReadonlyMap<BackplaneError, number> {
    return this.#errors;
  }

  /** For the readiness check: undefined when subscribed and Redis answers, else what is wrong. */
  async healthy(): Promise<string | undefined> {
    if (!this.#subscribed) return `redis backplane not subscribed (connection ${this.#sub.status})`;
    if (this.#pub.status !== 'ready') return `redis not connected (${this.#pub.status})`;
    try {
      return (await this.#pub.ping()) === 'PONG' ? undefined : 'redis did not answer';
    } catch (err) {
      return `redis did not answer: ${(err as Error).message}`;
    }
  }

  /**
   * How many other instances of this hub name are subscribed right now (Redis counts the
   * subscribers of the cluster channel, which every instance holds while it runs).
   */
  async otherInstances(): Promise<number> {
    const subscribers =
      this.#sub instanceof ShardSubscriber
        ? await this.#sub.subscribers(this.#channel)
        : ((await this.#pub.pubsub('NUMSUB', this.#channel)) as [string, number])[1];
    return Number(subscribers) - (this.#subscribed ? 1 : 0);
  }

  async close(): Promise<void> {
    this.#closing = true;
    // The last batch of the lease holder's readings is answered before QUIT goes out.
    await this.#fenced.flush();
    await Promise.allSettled([closeClient(this.#sub), closeClient(this.#pub)]);
  }

  #subscribe(): void {
    const watched = [...this.#watched];
    const groups = watched.map((group) => this.#groupPrefix + group);
    const restored = this.#lost ? this.#onResubscribe.map((handler) => handler(watched)) : [];
    this.#subscribing = this.#sub.subscribe(this.#channel, ...groups).then(
      () => {
        this.#subscribed = this.#sub.status === 'ready';
        this.#log.info({ channel: this.#channel }, 'redis backplane subscribed');
        if (!this.#subscribed || !this.#lost) return;
        this.#lost = false;
        for (const done of restored) done();
      },
      (err: Error) => this.#fault('subscribe', err, 'redis backplane subscribe failed'),
    );
  }

  #count(kind: BackplaneError): void {
    this.#errors.set(kind, this.#errors.get(kind)! + 1);
  }

  #fault(kind: BackplaneError, err: Error, message: string): void {
    this.#count(kind);
    this.#faults.warn({ err: { message: err.message } }, message);
  }

  #receive(text: string): void {
    let wire: BackplaneWire;
    try {
      wire = decodeBackplaneWire(text);
    } catch {
      this.#count('malformed');
      this.#log.warn('malformed backplane message ignored');
      return;
    }
    // A group's envelope after its last member left (the unsubscribe was on its way) has no one to reach.
    if (wire.node === this.#node || (wire.envelope.kind === 'group' && !this.#watched.has(wire.envelope.group))) return;
    for (const handler of this.#handlers) handler(wire.envelope);
  }
}

/** QUIT when connected (bounded by the command timeout), else just drop the connection and its reconnects. */
async function closeClient(client: Pick<Subscriber, 'status' | 'quit' | 'disconnect'>): Promise<void> {
  if (client.status === 'ready') {
    try {
      await client.quit();
      return;
    } catch {
      // fall through: a silent Redis never answers QUIT either
    }
  }
  client.disconnect();
}
