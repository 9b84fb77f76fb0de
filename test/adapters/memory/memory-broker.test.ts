import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MEMORY_QUEUE_CAPACITY, MemoryBroker } from '../../../src/adapters/memory/memory-broker.js';
import { eventually } from '../../support/app-harness.js';
import type { MessageQueue } from '../../../src/features/outbox/message-queue.js';
import { MAX_ATTEMPTS, runMessageQueueContract } from '../../features/outbox/message-queue.case.js';

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

describe('MemoryQueue bounds', () => {
  it('refuses a publish beyond its capacity instead of growing, and takes more once consumed', async () => {
    const queue = new MemoryBroker().connect({ name: 'bounded', maxAttempts: 1 });
    const msg = (i: number) => ({ id: `m${i}`, body: Buffer.from('{}'), headers: { tenant_id: 't' } });
    for (let i = 0; i < MEMORY_QUEUE_CAPACITY; i++) await queue.publish(msg(i));
    await expect(queue.publish(msg(-1))).rejects.toThrow(/queue full/);
    let handled = 0;
    const consumer = await queue.consume(async () => void handled++, { prefetch: 100 });
    await eventually(() => handled === MEMORY_QUEUE_CAPACITY, 10_000, 'the queue to drain');
    await queue.publish(msg(-1));
    await consumer.stop();
    await queue.close();
  });
});
