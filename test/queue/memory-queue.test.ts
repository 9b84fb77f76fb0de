import { randomUUID } from 'node:crypto';
import { MemoryBroker } from '../../src/queue/memory-queue.js';
import type { MessageQueue } from '../../src/queue/message-queue.js';
import { MAX_ATTEMPTS, runMessageQueueContract } from './message-queue.case.js';

runMessageQueueContract('MemoryQueue', async () => {
  const broker = new MemoryBroker();
  const name = `orders-${randomUUID()}`;
  const open: MessageQueue[] = [];
  return {
    connect: () => {
      const q = broker.connect({ name, maxAttempts: MAX_ATTEMPTS });
      open.push(q);
      return q;
    },
    dispose: async () => void (await Promise.all(open.map((q) => q.close()))),
  };
});
