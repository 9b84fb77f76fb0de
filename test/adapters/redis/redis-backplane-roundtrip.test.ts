import fc from 'fast-check';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';
import type { BackplaneEnvelope } from '../../../src/wire/backplane-codec.js';
import { eventually } from '../../support/app-harness.js';
import { requireService } from '../../support/services.js';
import { envelope } from '../../wire/envelope-arbitrary.js';

describe('Redis backplane between two nodes (real Redis)', () => {
  let available = false;
  let a: RedisBackplane;
  let b: RedisBackplane;
  const received: BackplaneEnvelope[] = [];

  beforeAll(async () => {
    available = await requireService('Redis', 6379);
    if (!available) return;
    const hubName = `bp${process.pid}x${Date.now().toString(36)}`;
    const log = pino({ level: 'silent' });
    a = new RedisBackplane({ url: 'redis://127.0.0.1:6379', hubName, log });
    b = new RedisBackplane({ url: 'redis://127.0.0.1:6379', hubName, log });
    await a.start();
    await b.start();
    b.onMessage((e) => received.push(e));
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  async function relay(env: BackplaneEnvelope): Promise<BackplaneEnvelope> {
    received.length = 0;
    // A group's envelopes reach the nodes watching it.
    if (env.kind === 'group') await b.watch(env.group);
    a.publish(env);
    await eventually(() => received.length === 1, 3000, 'the envelope on the other node');
    if (env.kind === 'group') b.unwatch(env.group);
    return received[0]!;
  }

  it('delivers user JSON shaped like an encoding of bytes as that JSON, and bytes as bytes', async ({ skip }) => {
    if (!available) return skip();
    const json = (data: unknown): BackplaneEnvelope => ({
      kind: 'all',
      message: { source: { kind: 'server' }, dataType: 'json', data, conflationKey: undefined, kind: 'message' },
    });
    expect((await relay(json({ $b64: 'aGk=' }))).message.data).toEqual({ $b64: 'aGk=' });
    expect((await relay(json({ type: 'Buffer', data: [104, 105] }))).message.data).toEqual({
      type: 'Buffer',
      data: [104, 105],
    });
    const bytes = Buffer.from([0, 255, 104, 105]);
    const got = await relay({
      kind: 'group',
      group: 'g',
      message: {
        source: { kind: 'group', group: 'g' },
        dataType: 'binary',
        data: bytes,
        conflationKey: undefined,
        kind: 'message',
      },
    });
    expect(Buffer.isBuffer(got.message.data) && got.message.data.equals(bytes)).toBe(true);
  });

  it('round-trips arbitrary envelopes exactly', async ({ skip }) => {
    if (!available) return skip();
    await fc.assert(
      fc.asyncProperty(envelope, async (env) => {
        expect(await relay(env)).toEqual(env);
      }),
      { numRuns: 200 },
    );
  });
});
