import { randomUUID } from 'node:crypto';
import type { Checkpoint, CheckpointStore, PartitionOwnership } from '../../realtime/checkpoint-store.js';
import { assertCheckpoint } from '../../realtime/checkpoint-store.js';
import { checkpointScope } from '../../realtime/checkpoint-store.js';
import { systemClock } from '../../host/clock.js';

/**
 * A CheckpointStore in process memory: balances partitions between sources in one process and keeps
 * checkpoints across their restarts, not across process restarts. Ownership claims use etags like the
 * Blob and Redis stores: a claim wins only with the etag of the ownership it replaces (none for a new one).
 */
export class MemoryCheckpointStore implements CheckpointStore {
  private readonly ownerships = new Map<string, Map<string, PartitionOwnership>>();
  private readonly checkpoints = new Map<string, Map<string, Checkpoint>>();

  async listOwnership(
    fullyQualifiedNamespace: string,
    eventHubName: string,
    consumerGroup: string,
  ): Promise<PartitionOwnership[]> {
    const scope = this.ownerships.get(checkpointScope(fullyQualifiedNamespace, eventHubName, consumerGroup));
    return scope ? [...scope.values()].map((o) => ({ ...o })) : [];
  }

  async claimOwnership(requested: PartitionOwnership[]): Promise<PartitionOwnership[]> {
    const claimed: PartitionOwnership[] = [];
    for (const request of requested) {
      const scope = scopeOf(
        this.ownerships,
        checkpointScope(request.fullyQualifiedNamespace, request.eventHubName, request.consumerGroup),
      );
      const current = scope.get(request.partitionId);
      if ((current?.etag ?? undefined) !== (request.etag ?? undefined)) continue;
      const next = { ...request, etag: randomUUID(), lastModifiedTimeInMs: systemClock.now() };
      scope.set(request.partitionId, next);
      claimed.push({ ...next });
    }
    return claimed;
  }

  async listCheckpoints(
    fullyQualifiedNamespace: string,
    eventHubName: string,
    consumerGroup: string,
  ): Promise<Checkpoint[]> {
    const scope = this.checkpoints.get(checkpointScope(fullyQualifiedNamespace, eventHubName, consumerGroup));
    return scope ? [...scope.values()].map((c) => ({ ...c })) : [];
  }

  async updateCheckpoint(checkpoint: Checkpoint): Promise<void> {
    assertCheckpoint(checkpoint);
    const scope = scopeOf(
      this.checkpoints,
      checkpointScope(checkpoint.fullyQualifiedNamespace, checkpoint.eventHubName, checkpoint.consumerGroup),
    );
    scope.set(checkpoint.partitionId, { ...checkpoint });
  }
}

function scopeOf<T>(maps: Map<string, Map<string, T>>, key: string): Map<string, T> {
  let scope = maps.get(key);
  if (!scope) maps.set(key, (scope = new Map()));
  return scope;
}
