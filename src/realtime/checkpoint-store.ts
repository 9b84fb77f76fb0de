/**
 * Where Event Hubs consumers keep partition ownership and checkpoints, shared by the instances of
 * one consumer group. The shape is the Event Hubs SDK's `CheckpointStore` (the SDK takes an
 * implementation of this port as it is); defined here so its implementations (memory, Redis) need
 * no Event Hubs client.
 */
export interface CheckpointStore {
  listOwnership(
    fullyQualifiedNamespace: string,
    eventHubName: string,
    consumerGroup: string,
    options?: CheckpointStoreOptions,
  ): Promise<PartitionOwnership[]>;
  /** The claims that succeeded: a claim whose `etag` no longer matches the stored one fails. */
  claimOwnership(
    partitionOwnership: PartitionOwnership[],
    options?: CheckpointStoreOptions,
  ): Promise<PartitionOwnership[]>;
  updateCheckpoint(checkpoint: Checkpoint, options?: CheckpointStoreOptions): Promise<void>;
  listCheckpoints(
    fullyQualifiedNamespace: string,
    eventHubName: string,
    consumerGroup: string,
    options?: CheckpointStoreOptions,
  ): Promise<Checkpoint[]>;
}

export interface CheckpointStoreOptions {
  abortSignal?: AbortSignal | { readonly aborted: boolean } | undefined;
}

/** Who owns a partition of a consumer group, and since when. */
export interface PartitionOwnership {
  fullyQualifiedNamespace: string;
  eventHubName: string;
  consumerGroup: string;
  partitionId: string;
  ownerId: string;
  lastModifiedTimeInMs?: number;
  etag?: string;
}

/** How far a consumer group has read a partition. */
export interface Checkpoint {
  fullyQualifiedNamespace: string;
  eventHubName: string;
  consumerGroup: string;
  partitionId: string;
  sequenceNumber: number;
  offset: string;
}

/** A checkpoint without a position would silently send the next owner back to the start position. */
export function assertCheckpoint(checkpoint: Checkpoint): void {
  if (typeof checkpoint.sequenceNumber !== 'number' || typeof checkpoint.offset !== 'string') {
    throw new TypeError(`checkpoint for partition ${checkpoint.partitionId} needs sequenceNumber and offset`);
  }
}

/**
 * The key one hub's consumer group is stored under. Lowercased like the Blob checkpoint store, because
 * namespaces and hub names are case-insensitive on the service.
 */
export function checkpointScope(fullyQualifiedNamespace: string, eventHubName: string, consumerGroup: string): string {
  return `${fullyQualifiedNamespace}/${eventHubName}/${consumerGroup}`.toLowerCase();
}
