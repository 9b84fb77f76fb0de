import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LogThrottle } from '../host/log-throttle.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { Backplane, BackplaneEnvelope } from '../hub/backplane.js';
import { decodeBackplaneWire, encodeBackplaneWire, type BackplaneWire } from './backplane-codec.js';
import { boundedRedisOptions } from './bounded-redis-options.js';

/**
 * Scale-out over Redis pub/sub: each node publishes what its hub sends to a channel per hub name
 * and delivers what the other nodes published. Also a hosted service: start fails when Redis
 * cannot be reached, so a misconfigured instance never serves half a hub.
 */
export class RedisBackplane implements Backplane, HostedService {
  readonly name = 'redis-backplane';
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #channel: string;
  readonly #node = randomUUID();
  readonly #log: Logger;
  /** Failures repeat per publish and per reconnect while Redis is away: a few lines, not one each. */
  readonly #faults: LogThrottle;
  readonly #handlers: ((envelope: BackplaneEnvelope) => void)[] = [];

  constructor(options: { url: string; hubName: string; log: Logger }) {
    this.#pub = new Redis(options.url, boundedRedisOptions());
    this.#sub = new Redis(options.url, boundedRedisOptions());
    this.#channel = `telemetry-hub:${options.hubName}:backplane`;
    this.#log = options.log;
    this.#faults = new LogThrottle(options.log);
    for (const client of [this.#pub, this.#sub]) {
      client.on('error', (err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redis error'));
    }
    this.#sub.on('message', (_channel: string, text: string) => this.#receive(text));
  }

  async start(): Promise<void> {
    try {
      await Promise.all([this.#pub.connect(), this.#sub.connect()]);
      await this.#sub.subscribe(this.#channel);
    } catch (err) {
      // A failed start is not stopped by the host: stop ioredis' reconnect loop here.
      this.#pub.disconnect();
      this.#sub.disconnect();
      throw err;
    }
    this.#log.info({ channel: this.#channel }, 'redis backplane subscribed');
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
    this.#pub.publish(this.#channel, encodeBackplaneWire({ node: this.#node, envelope })).catch((err: Error) => {
      this.#faults.warn({ err: { message: err.message } }, 'backplane publish failed');
    });
  }

  onMessage(handler: (envelope: BackplaneEnvelope) => void): void {
    this.#handlers.push(handler);
  }

  /** For the readiness check: Redis answers within the check's timeout. */
  async ping(): Promise<boolean> {
    return (await this.#pub.ping()) === 'PONG';
  }

  async close(): Promise<void> {
    await Promise.allSettled([closeClient(this.#sub), closeClient(this.#pub)]);
  }

  #receive(text: string): void {
    let wire: BackplaneWire;
    try {
      wire = decodeBackplaneWire(text);
    } catch {
      this.#log.warn('malformed backplane message ignored');
      return;
    }
    if (wire.node === this.#node) return;
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
