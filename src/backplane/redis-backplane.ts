import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LogThrottle } from '../host/log-throttle.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { Backplane, BackplaneEnvelope } from '../hub/backplane.js';
import { decodeBackplaneWire, encodeBackplaneWire, type BackplaneWire } from './backplane-codec.js';
import { boundedRedisOptions } from './bounded-redis-options.js';

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
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #channel: string;
  readonly #groupPrefix: string;
  /** Groups with local members: their channels are subscribed on every (re)connection. */
  readonly #watched = new Set<string>();
  readonly #node = randomUUID();
  readonly #log: Logger;
  /** Failures repeat per publish and per reconnect while Redis is away: a few lines, not one each. */
  readonly #faults: LogThrottle;
  readonly #handlers: ((envelope: BackplaneEnvelope) => void)[] = [];
  /** Redis acknowledged the channel subscription on the subscriber's current connection. */
  #subscribed = false;
  #subscribing: Promise<void> | undefined;
  #closing = false;

  constructor(options: { url: string; hubName: string; log: Logger }) {
    this.#pub = new Redis(options.url, boundedRedisOptions());
    this.#sub = new Redis(options.url, boundedRedisOptions());
    this.#channel = `telemetry-hub:${options.hubName}:backplane`;
    this.#groupPrefix = `telemetry-hub:${options.hubName}:group:`;
    this.#log = options.log;
    this.#faults = new LogThrottle(options.log);
    for (const client of [this.#pub, this.#sub]) {
      client.on('error', (err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redis error'));
    }
    this.#sub.on('message', (_channel: string, text: string) => this.#receive(text));
    // Every (re)connection subscribes: the first one may come long after start, and a subscription
    // repeated after ioredis' own resubscribe is harmless.
    this.#sub.on('ready', () => this.#subscribe());
    this.#sub.on('close', () => {
      if (this.#subscribed && !this.#closing) this.#log.warn({ channel: this.#channel }, 'redis backplane unsubscribed: connection lost');
      this.#subscribed = false;
    });
  }

  /**
   * Waits for the first attempt only: subscribed when Redis is there, else a warning and ioredis'
   * reconnect loop retries (the readiness check says unready meanwhile). Never fails.
   */
  async start(): Promise<void> {
    try {
      await Promise.all([this.#pub.connect(), this.#sub.connect()]);
      await this.#subscribing;
    } catch (err) {
      this.#log.warn({ err: { message: (err as Error).message }, channel: this.#channel }, 'redis not reachable at start; serving locally and retrying');
    }
  }

  async stop(): Promise<void> {
    await this.close();
  }

  publish(envelope: BackplaneEnvelope): void {
    // Not connected: the message is lost for other instances (as on a broken connection) and
    // costs neither memory nor an encoding.
    if (this.#pub.status !== 'ready') {
      this.#faults.warn({ status: this.#pub.status }, 'backplane publish dropped: redis not connected');
      return;
    }
    const channel = envelope.kind === 'group' ? this.#groupPrefix + envelope.group : this.#channel;
    this.#pub.publish(channel, encodeBackplaneWire({ node: this.#node, envelope })).catch((err: Error) => {
      this.#faults.warn({ err: { message: err.message } }, 'backplane publish failed');
    });
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
      (err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redis backplane group subscribe failed'),
    );
  }

  unwatch(group: string): void {
    if (!this.#watched.delete(group) || this.#sub.status !== 'ready') return;
    this.#sub.unsubscribe(this.#groupPrefix + group).catch((err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redis backplane group unsubscribe failed'));
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

  async close(): Promise<void> {
    this.#closing = true;
    await Promise.allSettled([closeClient(this.#sub), closeClient(this.#pub)]);
  }

  #subscribe(): void {
    const groups = [...this.#watched].map((group) => this.#groupPrefix + group);
    this.#subscribing = this.#sub.subscribe(this.#channel, ...groups).then(
      () => {
        this.#subscribed = this.#sub.status === 'ready';
        this.#log.info({ channel: this.#channel }, 'redis backplane subscribed');
      },
      (err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redis backplane subscribe failed'),
    );
  }

  #receive(text: string): void {
    let wire: BackplaneWire;
    try {
      wire = decodeBackplaneWire(text);
    } catch {
      this.#log.warn('malformed backplane message ignored');
      return;
    }
    // A group's envelope after its last member left (the unsubscribe was on its way) has no one to reach.
    if (wire.node === this.#node || (wire.envelope.kind === 'group' && !this.#watched.has(wire.envelope.group))) return;
    for (const handler of this.#handlers) handler(wire.envelope);
  }
}

/** QUIT when connected (bounded by the command timeout), else just drop the connection and its reconnects. */
async function closeClient(client: Redis): Promise<void> {
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
