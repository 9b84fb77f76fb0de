import type { Checkpoint } from '@azure/event-hubs';

/** A checkpoint without a position would silently send the next owner back to the start position. */
export function assertCheckpoint(checkpoint: Checkpoint): void {
  if (typeof checkpoint.sequenceNumber !== 'number' || typeof checkpoint.offset !== 'string') {
    throw new TypeError(`checkpoint for partition ${checkpoint.partitionId} needs sequenceNumber and offset`);
  }
}
