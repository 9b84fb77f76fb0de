import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';
import type { BackplaneEnvelope } from '../../../src/wire/backplane-codec.js';
import { eventually } from '../../support/app-harness.js';
import { privateRedis, redisUrl, requireCommand, type PrivateServer } from '../../support/private-server.js';

const group = 'device:t:d1';
const envelope = (text: string): BackplaneEnvelope => ({
  kind: 'group',
  group,
  message: { source: { kind: 'group', group }, dataType: 'text', data: text, conflationKey: undefined },
});

/**
 * Envelopes published while a node's subscription is down never reach it: the node is told which
 * groups it watched as the subscription is restored, and when it is, so it can fetch the gap from
 * elsewhere (the hub: its members catch up from the history).
 */
describe('RedisBackplane after it lost its subscription (Redis restarted)', () => {
  const available = requireCommand('redis-server', 'needed to restart a private Redis');
  let redis: PrivateServer | undefined;
  const nodes: RedisBackplane[] = [];

  afterEach(async () => {
    await Promise.all(nodes.splice(0).map((n) => n.close()));
    await redis?.stop();
    redis = undefined;
  });

  it('names the watched groups as the subscription is restored, then says it is: what is published from then on arrives', async ({
    skip,
  }) => {
    if (!available) return skip();
    redis = await privateRedis();
    await redis.start();
    const hubName = `resub${process.pid}`;
    for (let i = 0; i < 2; i++)
      nodes.push(new RedisBackplane({ url: redisUrl(redis), hubName, log: pino({ level: 'silent' }) }));
    const [watcher, publisher] = nodes as [RedisBackplane, RedisBackplane];
    await Promise.all(nodes.map((n) => n.start()));
    const events: string[] = [];
    const got: string[] = [];
    watcher.onResubscribe((groups) => {
      events.push(`restoring ${groups.join(',')}`);
      return () => events.push(`restored after ${got.length} received`);
    });
    watcher.onMessage((e) => got.push(String(e.message.data)));
    await watcher.watch(group);
    publisher.publish(envelope('before'));
    await eventually(() => got.length === 1, 5000, 'the first envelope');
    expect(events).toEqual([]);

    await redis.stop();
    await redis.start();
    await eventually(() => events.length === 2, 20_000, 'the subscription restored');
    expect(events).toEqual([`restoring ${group}`, 'restored after 1 received']);
    await eventually(async () => (await publisher.healthy()) === undefined, 20_000, 'the publisher back');
    publisher.publish(envelope('after'));
    await eventually(() => got.length === 2, 5000, 'the envelope published after the restore');
    expect(got).toEqual(['before', 'after']);
  }, 60_000);
});
