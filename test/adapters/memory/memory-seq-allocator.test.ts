import { MemorySeqAllocator, type MemorySeqCounters } from '../../../src/adapters/memory/memory-seq-allocator.js';
import { runSeqAllocatorContract } from '../../realtime/seq-allocator.case.js';

runSeqAllocatorContract('MemorySeqAllocator', async (size) => {
  const counters: MemorySeqCounters = new Map();
  return {
    instances: Array.from({ length: size }, () => new MemorySeqAllocator(counters)),
    dispose: async () => undefined,
  };
});
