/**
 * An external broker's devices split into `count` ingest partitions, each leased to one instance
 * at a time (docs/ingestion.md, "Partitions"). Every instance must put a device in the same
 * partition, so the split is a fixed hash of the device's topic (which names its tenant and id),
 * never anything local to a process.
 */
export function partitionOfTopic(topic: string, count: number): number {
  if (count <= 1) return 0;
  // FNV-1a, 32 bits: stable across processes, versions and platforms, and cheap per message.
  let hash = 0x811c9dc5;
  for (let i = 0; i < topic.length; i++) {
    hash ^= topic.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/**
 * The partition a fencing token belongs to: partition p's tokens are ≡ p (mod count), so a reading
 * carries one number (`RawReading.fence`) and every fenced write finds its partition's token by it.
 */
export function partitionOfFence(fence: number, count: number): number {
  return count <= 1 ? 0 : fence % count;
}
