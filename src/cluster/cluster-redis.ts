import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { boundedRedisOptions } from '../backplane/bounded-redis-options.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { LogThrottle } from '../host/log-throttle.js';

/**
 * The Redis connection for the cluster's shared state (the ingest lease, each device's `seq`).
 * Commands are auto-pipelined: the `seq` of thousands of readings a second costs a few round
 * trips, not one each. Bounded like the backplane's clients: a Redis that is down or silent fails
 * commands fast instead of queueing them. Start never waits for Redis.
 */
export class ClusterRedis implements HostedService {
  readonly name = 'cluster-redis';
  readonly client: Redis;
  readonly #log: Logger;
  #closing = false;

  constructor(options: { url: string; log: Logger }) {
    this.client = new Redis(options.url, { ...boundedRedisOptions(), enableAutoPipelining: true });
    this.#log = options.log;
    const faults = new LogThrottle(options.log);
    this.client.on('error', (err: Error) => faults.warn({ err: { message: err.message } }, 'redis error'));
  }

  async start(): Promise<void> {
    try {
      await this.client.connect();
    } catch (err) {
      this.#log.warn({ err: { message: (err as Error).message } }, 'redis not reachable at start; cluster state waits for it');
    }
  }

  async stop(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    if (this.client.status === 'ready') {
      try {
        await this.client.quit();
        return;
      } catch {
        // a silent Redis never answers QUIT either
      }
    }
    this.client.disconnect();
  }
}
