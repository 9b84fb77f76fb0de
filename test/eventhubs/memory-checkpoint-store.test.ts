import { MemoryCheckpointStore } from '../../src/ingest/eventhubs/memory-checkpoint-store.js';
import { runCheckpointStoreContract } from './checkpoint-store.case.js';

runCheckpointStoreContract('MemoryCheckpointStore', async () => ({ store: new MemoryCheckpointStore(), dispose: async () => {} }));
