/**
 * A seq allocator's refusal: the reading's ingest lease holding is over and a successor numbers the
 * device now. The pipeline drops such a reading as `fenced` (drop-reason.ts); it lives beside the
 * drop reasons so the reading's path needs nothing of the allocator but its type.
 */
export class SeqRefused extends Error {
  constructor(fence: number) {
    super(`seq refused: fencing token ${fence} is stale`);
    this.name = 'SeqRefused';
  }
}
