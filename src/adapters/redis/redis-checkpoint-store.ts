import { randomUUID } from 'node:crypto';
import type { Checkpoint, CheckpointStore, PartitionOwnership } from '../../realtime/checkpoint-store.js';
import type { RedisClient } from './redis-connection.js';
import { assertCheckpoint } from '../../realtime/checkpoint-store.js';
import { checkpointScope } from '../../realtime/checkpoint-store.js';
import { systemClock } from '../../host/clock.js';

export interface RedisCheckpointStoreOptions {
  /** Prepended to every key. Default `telemetry-hub:eventhubs:`. */
  keyPrefix?: string;
}

/**
 * Replaces an ownership only if the stored etag is the one the claimer last saw (empty = "none stored"),
 * in one step, so two instances racing for a partition cannot both win. KEYS[1] ownership hash;
 * ARGV partitionId, expected etag, new ownership JSON.
 */
const CLAIM = `
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  if ARGV[2] == '' or cjson.decode(current).etag ~= ARGV[2] then return 0 end
elseif ARGV[2] ~= '' then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`;

/**
 * A CheckpointStore on Redis, for sources on several instances: one hash of ownerships and one of
 * checkpoints per hub and consumer group, values as JSON. The client is borrowed; its owner closes it.
 */
export class RedisCheckpointStore implements CheckpointStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: RedisClient,
    options: RedisCheckpointStoreOptions = {},
  ) {
    this.prefix = options.keyPrefix ?? 'telemetry-hub:eventhubs:';
  }

  async listOwnership(
    fullyQualifiedNamespace: string,
    eventHubName: string,
    consumerGroup: string,
  ): Promise<PartitionOwnership[]> {
    return this.readAll<PartitionOwnership>(
      this.key('ownership', fullyQualifiedNamespace, eventHubName, consumerGroup),
    );
  }

  async claimOwnership(requested: PartitionOwnership[]): Promise<PartitionOwnership[]> {
    const results = await Promise.all(
      requested.map(async (request) => {
        const next: PartitionOwnership = { ...request, etag: randomUUID(), lastModifiedTimeInMs: systemClock.now() };
        const key = this.key('ownership', request.fullyQualifiedNamespace, request.eventHubName, request.consumerGroup);
        const won = await this.redis.eval(CLAIM, 1, key, request.partitionId, request.etag ?? '', JSON.stringify(next));
        return won === 1 ? next : undefined;
      }),
    );
    return results.filter((o): o is PartitionOwnership => o !== undefined);
  }

  async listCheckpoints(
    fullyQualifiedNamespace: string,
    eventHubName: string,
    consumerGroup: string,
  ): Promise<Checkpoint[]> {
    return this.readAll<Checkpoint>(this.key('checkpoints', fullyQualifiedNamespace, eventHubName, consumerGroup));
  }

  async updateCheckpoint(checkpoint: Checkpoint): Promise<void> {
    assertCheckpoint(checkpoint);
    const key = this.key(
      'checkpoints',
      checkpoint.fullyQualifiedNamespace,
      checkpoint.eventHubName,
      checkpoint.consumerGroup,
    );
    const { fullyQualifiedNamespace, eventHubName, consumerGroup, partitionId, sequenceNumber, offset } = checkpoint;
    await this.redis.hset(
      key,
      partitionId,
      JSON.stringify({ fullyQualifiedNamespace, eventHubName, consumerGroup, partitionId, sequenceNumber, offset }),
    );
  }

  private key(
    kind: 'ownership' | 'checkpoints',
    fullyQualifiedNamespace: string,
    eventHubName: string,
    consumerGroup: string,
  ): string {
    return `${this.prefix}${checkpointScope(fullyQualifiedNamespace, eventHubName, consumerGroup)}:${kind}`;
  }

  private async readAll<T>(key: string): Promise<T[]> {
    const entries = await this.redis.hgetall(key);
    return Object.values(entries).map((json) => JSON.parse(json) as T);
  }
}
