import type { CheckpointStore } from '@azure/event-hubs';
import { Redis } from 'ioredis';
import { boundedRedisOptions } from '../../backplane/bounded-redis-options.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import { MemoryCheckpointStore } from './memory-checkpoint-store.js';
import { RedisCheckpointStore } from './redis-checkpoint-store.js';

/**
 * The checkpoint store the Event Hubs source shares with the other instances: Redis when
 * configured (owning its client: start fails when Redis is unreachable), else memory (a single
 * instance that starts from the earliest event after each restart).
 */
export class CheckpointStoreService implements HostedService {
  readonly name = 'eventhubs-checkpoints';
  readonly store: CheckpointStore;
  readonly #redis: Redis | undefined;

  constructor(redisUrl: string | undefined) {
    this.#redis = redisUrl ? new Redis(redisUrl, boundedRedisOptions()) : undefined;
    this.#redis?.on('error', () => undefined);
    this.store = this.#redis ? new RedisCheckpointStore(this.#redis) : new MemoryCheckpointStore();
  }

  async start(): Promise<void> {
    if (!this.#redis) return;
    try {
      await this.#redis.connect();
    } catch (err) {
      this.#redis.disconnect();
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (this.#redis?.status === 'ready') await this.#redis.quit().catch(() => undefined);
    this.#redis?.disconnect();
  }
}
