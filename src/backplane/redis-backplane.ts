import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { Backplane, BackplaneEnvelope } from '../hub/backplane.js';
import { decodeBackplaneWire, encodeBackplaneWire, type BackplaneWire } from './backplane-codec.js';

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
  readonly #handlers: ((envelope: BackplaneEnvelope) => void)[] = [];

  constructor(options: { url: string; hubName: string; log: Logger }) {
    const redisOptions = { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true };
    this.#pub = new Redis(options.url, redisOptions);
    this.#sub = new Redis(options.url, redisOptions);
    this.#channel = `telemetry-hub:${options.hubName}:backplane`;
    this.#log = options.log;
    for (const client of [this.#pub, this.#sub]) {
      client.on('error', (err: Error) => this.#log.warn({ err: { message: err.message } }, 'redis error'));
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
    this.#pub.publish(this.#channel, encodeBackplaneWire({ node: this.#node, envelope })).catch((err: Error) => {
      this.#log.warn({ err: { message: err.message } }, 'backplane publish failed');
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
    await Promise.allSettled([this.#sub.quit(), this.#pub.quit()]);
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
