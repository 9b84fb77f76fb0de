import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/app-harness.js';
import { requireService } from '../../support/services.js';
import {
  checkpointedEvents,
  checkpointKeys,
  ingestionSettled,
  pollPause,
  injectReadings,
  ownership,
  REDIS_URL,
  startHub,
  subscribe,
  uniqueName,
  expectedSeq,
  redisPeerFixture,
} from './e2e-support.js';

const PARTITIONS = 2;
const TENANT = 'ehrestart';
const DEVICES = ['dev-a', 'dev-b', 'dev-c', 'dev-d', 'dev-e', 'dev-f'];
const FIRST = 20;
const SECOND = 15;
const LIVE = 5;

const hasRedis = await requireService('Redis', 6379);

describe.skipIf(!hasRedis)('Event Hubs end to end: a restarted hub resumes from the Redis checkpoints', () => {
  const fx = redisPeerFixture(PARTITIONS);
  // Its own backplane channel, so parallel test files sharing Redis do not see each other's readings.
  const args = [`--ConnectionStrings:redis=${REDIS_URL}`, `--Hub:Name=${uniqueName('e2e_')}`];

  it('hub B delivers exactly the events injected while hub A was down: none twice, none skipped', async () => {
    // The devices cover both partitions, so both partitions' checkpoints are exercised.
    expect(new Set(DEVICES.map((d) => fx.peer.partitionFor(d))).size).toBe(PARTITIONS);
    injectReadings(fx.peer, DEVICES, 0, FIRST);

    const a = await startHub(fx.peer, TENANT, args);
    fx.hubs.push(a);
    const total = FIRST * DEVICES.length;
    // The SDK claims one partition per 10 s load-balancing loop: A owns both after about 10 s.
    await eventually(
      () => a.app.telemetry.pipeline.stats().accepted === total,
      20_000,
      'hub A accepting the first events',
    );
    for (const d of DEVICES) {
      expect(a.app.telemetry.registry.last(TENANT, d)).toMatchObject({
        seq: expectedSeq(fx.peer, DEVICES, d, FIRST),
        data: { n: FIRST - 1 },
      });
    }
    // Checkpoints are written after each handed-over batch, under keys that carry the hub name.
    let covered = 0;
    const deadline = Date.now() + 5000;
    while ((covered = await checkpointedEvents(fx.redis, fx.peer)) < total && Date.now() < deadline)
      await pollPause(50);
    expect(covered).toBe(total);
    expect(await fx.redis.exists(checkpointKeys(fx.peer).ownership)).toBe(1);

    await a.stop();
    fx.hubs.splice(fx.hubs.indexOf(a), 1);
    // On a clean stop the SDK abandons its partitions (empty owner), so B need not wait for them to expire.
    expect([...(await ownership(fx.redis, fx.peer)).values()]).toEqual(['', '']);

    injectReadings(fx.peer, DEVICES, FIRST, SECOND);
    const b = await startHub(fx.peer, TENANT, args);
    fx.hubs.push(b);
    fx.subscriber = await subscribe(b, TENANT, DEVICES);
    // A few more once B serves a subscriber, so the subscriber surely sees live readings.
    injectReadings(fx.peer, DEVICES, FIRST + SECOND, LIVE);
    const perDevice = SECOND + LIVE;
    const last = FIRST + perDevice - 1;
    const more = perDevice * DEVICES.length;
    await eventually(
      () => b.app.telemetry.pipeline.stats().accepted >= more,
      20_000,
      'hub B accepting the events injected since A stopped',
    );
    await ingestionSettled(fx.peer, PARTITIONS, [b]);
    await eventually(
      () => DEVICES.every((d) => fx.subscriber!.of(d).at(-1)?.data['n'] === last),
      5000,
      'the newest reading of every device at the subscriber',
    );

    // seq is the partition's sequence number (+1), so it continues from A's: a client that skips
    // seqs it has seen keeps working across the restart.
    expect(b.app.telemetry.pipeline.stats().accepted).toBe(more);
    for (const d of DEVICES) {
      expect(b.app.telemetry.registry.last(TENANT, d)).toMatchObject({
        seq: expectedSeq(fx.peer, DEVICES, d, FIRST + perDevice),
        data: { n: last },
      });
      // The subscriber sees only readings from after the restart (the throttle may skip some in
      // between), each once, ending with the newest.
      const received = fx.subscriber!.of(d);
      const ns = received.map((r) => r.data['n'] as number);
      expect(Math.min(...ns)).toBeGreaterThanOrEqual(FIRST);
      expect(ns.at(-1)).toBe(last);
      expect(new Set(received.map((r) => r.seq)).size).toBe(received.length);
    }
    // Every event is checkpointed, the barrier's one per partition included.
    const checkpointDeadline = Date.now() + 5000;
    while (
      (covered = await checkpointedEvents(fx.redis, fx.peer)) < total + more + PARTITIONS &&
      Date.now() < checkpointDeadline
    )
      await pollPause(50);
    expect(covered).toBe(total + more + PARTITIONS);
  }, 60_000);
});
