/**
 * The MessageQueue contract every implementation runs: what the outbox relay and the worker rely on.
 * Messages arrive with their id, body and headers; a failed handler gets the message again with the
 * next attempt number; after maxAttempts it is dead-lettered; prefetch bounds the unsettled
 * deliveries; a connection lost with unsettled deliveries gives them to another consumer.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Delivery, MessageQueue, OutgoingMessage } from '../../../src/features/outbox/message-queue.js';
import { eventually } from '../../support/app-harness.js';

export interface QueueUnderTest {
  /** A new connection to this test's queue (each call one more, sharing the queue). */
  connect(): MessageQueue;
  /** Closes what is still open and deletes the queue. */
  dispose(): Promise<void>;
}

export const MAX_ATTEMPTS = 3;

const message = (text: string, headers: Record<string, string> = {}): OutgoingMessage => ({
  id: randomUUID(),
  body: Buffer.from(JSON.stringify({ text })),
  headers: { tenant_id: 'acme', ...headers },
});

const textOf = (d: Delivery) => (JSON.parse(d.body.toString()) as { text: string }).text;

export function runMessageQueueContract(name: string, create: () => Promise<QueueUnderTest>): void {
  describe(`${name} (MessageQueue contract)`, () => {
    let env: QueueUnderTest;
    let queue: MessageQueue;
    beforeEach(async () => {
      env = await create();
      queue = env.connect();
    });
    afterEach(async () => env.dispose());

    it('delivers id, body and headers as published, first attempt 1, and acknowledges a handled message', async () => {
      const sent = message('one', { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
      const got: Delivery[] = [];
      const consumer = await queue.consume(async (d) => void got.push(d), { prefetch: 4 });
      await queue.publish(sent);
      await eventually(() => got.length === 1, 5000, 'the delivery');
      expect(got[0]).toMatchObject({ id: sent.id, headers: sent.headers, attempt: 1 });
      expect(textOf(got[0]!)).toBe('one');
      // Acknowledged: a marker published after it is the only thing a second round sees.
      await queue.publish(message('marker'));
      await eventually(() => got.length === 2, 5000, 'the marker');
      expect(got.map(textOf)).toEqual(['one', 'marker']);
      await consumer.stop();
    });

    it('a failed handler gets the message again with the next attempt; success ends it', async () => {
      const attempts: number[] = [];
      const sent = message('flaky');
      await queue.publish(sent);
      const consumer = await queue.consume(
        async (d) => {
          attempts.push(d.attempt);
          if (textOf(d) === 'flaky' && d.attempt < 2) throw new Error('transient');
        },
        { prefetch: 1 },
      );
      await eventually(() => attempts.length === 2, 10_000, 'the redelivery');
      await queue.publish(message('marker'));
      await eventually(() => attempts.length === 3, 5000, 'the marker');
      expect(attempts).toEqual([1, 2, 1]);
      await consumer.stop();
      expect(await queue.takeDeadLetter()).toBeUndefined();
    });

    it(`a message that fails ${MAX_ATTEMPTS} times is dead-lettered with its id and headers`, async () => {
      const poison = message('poison');
      const attempts: number[] = [];
      await queue.publish(poison);
      const consumer = await queue.consume(
        async (d) => {
          attempts.push(d.attempt);
          throw new Error('always fails');
        },
        { prefetch: 1 },
      );
      let dead: Delivery | undefined;
      const deadline = Date.now() + 10_000;
      while (dead === undefined && Date.now() < deadline) {
        dead = await queue.takeDeadLetter();
        if (dead === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      await consumer.stop();
      expect(attempts).toEqual([1, 2, 3]);
      expect(dead).toMatchObject({ id: poison.id, headers: poison.headers });
      expect(textOf(dead!)).toBe('poison');
      expect(await queue.takeDeadLetter()).toBeUndefined();
    });

    it('never hands out more unsettled deliveries than prefetch', async () => {
      const release: (() => void)[] = [];
      const started: string[] = [];
      const consumer = await queue.consume(
        (d) => {
          started.push(textOf(d));
          return new Promise<void>((resolve) => release.push(resolve));
        },
        { prefetch: 2 },
      );
      for (const t of ['a', 'b', 'c', 'd']) await queue.publish(message(t));
      await eventually(() => started.length === 2, 5000, 'two deliveries');
      // The broker had c and d all along; only settling one lets the next one in.
      await new Promise((r) => setTimeout(r, 200));
      expect(started).toHaveLength(2);
      release.shift()!();
      await eventually(() => started.length === 3, 5000, 'the third delivery');
      expect(started).toEqual(['a', 'b', 'c']);
      while (release.length > 0 || started.length < 4) {
        release.shift()?.();
        await new Promise((r) => setTimeout(r, 10));
      }
      await eventually(() => started.length === 4, 5000, 'all four');
      release.forEach((r) => r());
      await consumer.stop();
    });

    it('deliveries unsettled when a connection is lost go to another consumer, as the next attempt', async () => {
      const crashed = env.connect();
      const held: Delivery[] = [];
      await crashed.consume(
        (d) => {
          held.push(d);
          return new Promise<void>(() => {}); // never settles: the process "dies" with it
        },
        { prefetch: 1 },
      );
      const sent = message('survives');
      await queue.publish(sent);
      await eventually(() => held.length === 1, 5000, 'the first delivery');
      await crashed.close();

      const got: Delivery[] = [];
      const consumer = await queue.consume(async (d) => void got.push(d), { prefetch: 1 });
      await eventually(() => got.length === 1, 10_000, 'the redelivery');
      expect(got[0]).toMatchObject({ id: sent.id, headers: sent.headers, attempt: 2 });
      await consumer.stop();
    });

    it('stop waits for the handlers in flight to settle', async () => {
      let release!: () => void;
      let finished = false;
      const consumer = await queue.consume(
        () =>
          new Promise<void>((resolve) => {
            release = () => {
              finished = true;
              resolve();
            };
          }),
        { prefetch: 1 },
      );
      await queue.publish(message('slow'));
      await eventually(() => release !== undefined, 5000, 'the delivery');
      const stopped = consumer.stop();
      setTimeout(() => release(), 100);
      await stopped;
      expect(finished).toBe(true);
    });
  });
}
