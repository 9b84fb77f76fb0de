import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { LogThrottle } from '../host/log-throttle.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import type { Backplane, BackplaneEnvelope } from '../hub/backplane.js';
import { boundedRedisOptions } from './bounded-redis-options.js';

interface Wire {
  /** The sending node: a node ignores its own envelopes (socket.io's cluster adapter does the same). */
  node: string;
  envelope: BackplaneEnvelope;
}

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
    const wire: Wire = { node: this.#node, envelope };
    this.#pub.publish(this.#channel, JSON.stringify(wire, binaryReplacer)).catch((err: Error) => {
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
    let wire: Wire;
    try {
      wire = JSON.parse(text, binaryReviver) as Wire;
    } catch {
      this.#log.warn('backplane message is not JSON; ignored');
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

/** Binary message data survives JSON as `{ $b64 }`. */
function binaryReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $b64: Buffer.from(value).toString('base64') };
  if (value && typeof value === 'object' && (value as { type?: unknown }).type === 'Buffer' && Array.isArray((value as { data?: unknown }).data)) {
    return { $b64: Buffer.from((value as { data: number[] }).data).toString('base64') };
  }
  return value;
}

function binaryReviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object' && typeof (value as { $b64?: unknown }).$b64 === 'string') {
    return Buffer.from((value as { $b64: string }).$b64, 'base64');
  }
  return value;
}
