import type { CheckpointStore } from '@azure/event-hubs';
import { Redis } from 'ioredis';
import { boundedRedisOptions } from '../../backplane/bounded-redis-options.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import { MemoryCheckpointStore } from './memory-checkpoint-store.js';
import { RedisCheckpointStore } from './redis-checkpoint-store.js';

/**
 * The checkpoint store the Event Hubs source shares with the other instances: Redis when
 * configured (owning its client), else memory (a single instance that starts from the earliest
 * event after each restart). An unreachable Redis does not stop start-up: the client keeps
 * reconnecting, and until it is back every store call fails at once, so the processor claims no
 * partition and reads nothing it could not checkpoint; the readiness check names redis meanwhile.
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

  /** Waits for the first attempt only; a failed one is retried by ioredis' reconnect loop. */
  async start(): Promise<void> {
    await this.#redis?.connect().catch(() => undefined);
  }

  async stop(): Promise<void> {
    if (this.#redis?.status === 'ready') await this.#redis.quit().catch(() => undefined);
    this.#redis?.disconnect();
  }
}
