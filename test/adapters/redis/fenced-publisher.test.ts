import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { FencedPublisher, type FencedOutcome } from '../../../src/adapters/redis/fenced-publisher.js';
import { eventually } from '../../support/app-harness.js';
import { deleteKeys, redisOrReport, REDIS_URL, uniquePrefix } from '../eventhubs/redis-for-tests.js';

if (await redisOrReport('FencedPublisher')) {
  describe('FencedPublisher (real Redis)', () => {
    const prefix = uniquePrefix();
    const fenceKey = `${prefix}fence`;
    const publishedKey = `${prefix}published-seqs`;
    const pub = new Redis(REDIS_URL);
    const sub = new Redis(REDIS_URL);
    afterAll(async () => {
      await deleteKeys(pub, prefix);
      pub.disconnect();
      sub.disconnect();
    });

    function fencedPublisher() {
      const outcomes: FencedOutcome[] = [];
      const publisher = new FencedPublisher(pub, {
        cluster: false,
        fenceKeyOf: () => fenceKey,
        publishedKey,
        outcome: (o) => outcomes.push(o),
      });
      const calls = { n: 0 };
      const call = (pub as unknown as { fencedPublish: (...a: string[]) => Promise<number> }).fencedPublish.bind(pub);
      (pub as unknown as { fencedPublish: (...a: string[]) => Promise<number> }).fencedPublish = (...a) => {
        calls.n++;
        return call(...a);
      };
      return { publisher, outcomes, calls };
    }

    it("one turn's messages of a holding go in one call, in order, each reading's group recording its seq", async () => {
      await pub.set(fenceKey, '3');
      const received: string[] = [];
      await sub.subscribe(`${prefix}a`, `${prefix}b`);
      sub.on('message', (_channel: string, text: string) => received.push(text));
      const { publisher, outcomes, calls } = fencedPublisher();
      for (let i = 1; i <= 50; i++)
        publisher.publish(3, `${prefix}${i % 2 ? 'a' : 'b'}`, `m${i}`, i % 2 ? 'ga' : 'gb', String(i));
      publisher.publish(3, `${prefix}a`, 'not a reading', '', '');
      await eventually(() => outcomes.length === 1, 5000, 'the outcome');
      expect(outcomes).toEqual([{ fence: 3, count: 51, sent: true }]);
      expect(calls.n).toBe(1);
      await eventually(() => received.length === 51, 5000, 'every message');
      expect(received).toEqual([...Array.from({ length: 50 }, (_, i) => `m${i + 1}`), 'not a reading']);
      expect(await pub.hgetall(publishedKey)).toEqual({ ga: '3:49', gb: '3:50' });
    });

    it('a stale holding sends and records nothing, and says so', async () => {
      await pub.set(fenceKey, '5');
      const { publisher, outcomes } = fencedPublisher();
      publisher.publish(4, `${prefix}a`, 'late', 'gc', '99');
      publisher.flush();
      await eventually(() => outcomes.length === 1, 5000, 'the outcome');
      expect(outcomes).toEqual([{ fence: 4, count: 1, sent: false }]);
      expect(await pub.hget(publishedKey, 'gc')).toBeNull();
    });
  });
}
