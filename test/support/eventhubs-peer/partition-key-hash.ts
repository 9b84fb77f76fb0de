/**
 * Maps a partition key to a partition. The service uses its own hash; a test peer only needs one that is
 * stable, so equal keys always land on the same partition (FNV-1a, 32 bit).
 */
export function partitionForKey(partitionKey: string, partitionCount: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(partitionKey, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % partitionCount;
}
