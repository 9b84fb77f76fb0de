import { randomUUID } from 'node:crypto';
import amqp from 'amqplib';
import { pino } from 'pino';
import { RabbitMqQueue } from '../../src/queue/rabbitmq-queue.js';
import { MAX_ATTEMPTS, runMessageQueueContract } from './message-queue.case.js';
import { RABBITMQ_URL, rabbitMqOrReport } from './rabbitmq-for-tests.js';

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
