import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/app-harness.js';
import { RabbitMqQueue } from '../../../src/adapters/rabbitmq/rabbitmq-queue.js';
import { MAX_ATTEMPTS, runMessageQueueContract } from '../../features/outbox/message-queue.case.js';
import { RABBITMQ_URL, rabbitMqOrReport } from '../../support/rabbitmq-for-tests.js';

if (await rabbitMqOrReport('RabbitMqQueue contract')) {
  runMessageQueueContract('RabbitMqQueue', async () => {
    // A queue per test: nothing left over from another run can arrive.
    const name = `test.orders.${randomUUID()}`;
    const open: RabbitMqQueue[] = [];
    return {
      connect: () => {
        const q = new RabbitMqQueue(RABBITMQ_URL, { name, maxAttempts: MAX_ATTEMPTS }, pino({ level: 'silent' }));
        open.push(q);
        return q;
      },
      dispose: async () => {
        await Promise.all(open.map((q) => q.close()));
        const connection = await amqp.connect(RABBITMQ_URL);
        const channel = await connection.createChannel();
        await channel.deleteQueue(name);
        await channel.deleteQueue(`${name}.dead`);
        await connection.close();
      },
    };
  });
}

if (await rabbitMqOrReport('RabbitMqQueue reconnect')) {
  describe('RabbitMqQueue when its connection is lost', () => {
    it('the consumer resumes by itself, the unsettled delivery comes back, and later publishes reopen the connection', async () => {
      const name = `test.orders.${randomUUID()}`;
      const queue = new RabbitMqQueue(RABBITMQ_URL, { name, maxAttempts: MAX_ATTEMPTS }, pino({ level: 'silent' }));
      try {
        const got: { text: string; attempt: number }[] = [];
        let hold = true;
        await queue.consume(
          async (d) => {
            got.push({ text: d.body.toString(), attempt: d.attempt });
            if (hold) await new Promise<void>(() => {}); // the first delivery is in flight when the connection drops
          },
          { prefetch: 1 },
        );
        await queue.publish({ id: randomUUID(), body: Buffer.from('first'), headers: { tenant_id: 'acme' } });
        await eventually(() => got.length === 1, 5000, 'the first delivery');
        hold = false;
        await (await queue.connection()).close();
        await queue.publish({ id: randomUUID(), body: Buffer.from('second'), headers: { tenant_id: 'acme' } });
        await eventually(() => got.length === 3, 20_000, 'the redelivery and the second message');
        // The broker decides whether the returned message or the new one comes first.
        expect(got[0]).toEqual({ text: 'first', attempt: 1 });
        expect(got.slice(1)).toEqual(
          expect.arrayContaining([
            { text: 'first', attempt: 2 },
            { text: 'second', attempt: 1 },
          ]),
        );
      } finally {
        await queue.close();
        const connection = await amqp.connect(RABBITMQ_URL);
        const channel = await connection.createChannel();
        await channel.deleteQueue(name);
        await channel.deleteQueue(`${name}.dead`);
        await connection.close();
      }
    }, 30_000);
  });
}
