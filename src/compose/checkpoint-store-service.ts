import type { CheckpointStore } from '../realtime/checkpoint-store.js';
import type { Logger } from 'pino';
import { RedisConnection } from '../adapters/redis/redis-connection.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { MemoryCheckpointStore } from '../adapters/memory/memory-checkpoint-store.js';
import { RedisCheckpointStore } from '../adapters/redis/redis-checkpoint-store.js';

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
  readonly #redis: RedisConnection | undefined;

  constructor(redisUrl: string | undefined, cluster: boolean, log: Logger) {
    this.#redis = redisUrl
      ? new RedisConnection({ url: redisUrl, cluster, name: 'eventhubs-checkpoints-redis', log })
      : undefined;
    this.store = this.#redis ? new RedisCheckpointStore(this.#redis.client) : new MemoryCheckpointStore();
  }

  async start(): Promise<void> {
    await this.#redis?.start();
  }

  async stop(): Promise<void> {
    await this.#redis?.stop();
  }
}
