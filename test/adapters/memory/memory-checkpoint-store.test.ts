import { MemoryCheckpointStore } from '../../../src/adapters/memory/memory-checkpoint-store.js';
import { runCheckpointStoreContract } from '../../realtime/checkpoint-store.case.js';

runCheckpointStoreContract('MemoryCheckpointStore', async () => ({
  store: new MemoryCheckpointStore(),
  dispose: async () => {},
}));
