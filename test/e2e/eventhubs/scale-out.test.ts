import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/app-harness.js';
import { requireService } from '../../support/services.js';
import {
  ingestionSettled,
  pollPause,
  injectReadings,
  ownerIdOf,
  ownership,
  REDIS_URL,
  startHub,
  subscribe,
  uniqueName,
  expectedSeq,
  redisPeerFixture,
} from './e2e-support.js';

const PARTITIONS = 2;
const TENANT = 'ehscale';
const DEVICES = ['dev-a', 'dev-b', 'dev-c', 'dev-d', 'dev-e', 'dev-f'];
const PER_DEVICE = 12;

const hasRedis = await requireService('Redis', 6379);

describe.skipIf(!hasRedis)('Event Hubs end to end: two hub instances share the partitions', () => {
  const fx = redisPeerFixture(PARTITIONS);
  const args = [
    `--ConnectionStrings:redis=${REDIS_URL}`,
    `--Hub:Name=${uniqueName('e2e_')}`,
    '--Throttle:MaxPerSecondPerDevice=1000',
  ];

  it('each partition is read by one instance, every event is accepted once overall, and B relays what A reads', async () => {
    expect(new Set(DEVICES.map((d) => fx.peer.partitionFor(d))).size).toBe(PARTITIONS);
    // Started together, each claims one partition in its first load-balancing loop; if both pick the
    // same one, the loser claims the other in its next loop (10 s, the SDK default).
    const [a, b] = await Promise.all([startHub(fx.peer, TENANT, args), startHub(fx.peer, TENANT, args)]);
    fx.hubs.push(a, b);
    await eventually(
      () => ownerIdOf(a) !== undefined && ownerIdOf(b) !== undefined,
      10_000,
      'both instances connected',
    );
    const ids = { a: ownerIdOf(a)!, b: ownerIdOf(b)! };
    let owners = new Map<string, string>();
    let stablePolls = 0;
    const deadline = Date.now() + 25_000;
    while (stablePolls < 4) {
      if (Date.now() > deadline)
        throw new Error(
          `partitions not balanced: ${JSON.stringify([...owners])}, readers ${JSON.stringify(fx.peer.openReceivers())}`,
        );
      owners = await ownership(fx.redis, fx.peer);
      const readers = fx.peer.openReceivers();
      const balanced =
        owners.size === PARTITIONS &&
        [...owners.values()].sort().join() === [ids.a, ids.b].sort().join() &&
        readers.length === PARTITIONS &&
        [...owners].every(([p, o]) => readers.filter((r) => r.partitionId === p && r.receiverName === o).length === 1);
      stablePolls = balanced ? stablePolls + 1 : 0;
      await pollPause(100);
    }
    const ownerOf = (deviceId: string): 'a' | 'b' => (owners.get(fx.peer.partitionFor(deviceId)) === ids.a ? 'a' : 'b');
    const ofA = DEVICES.filter((d) => ownerOf(d) === 'a');
    expect(ofA.length).toBeGreaterThan(0);

    // A client on B follows every device, including those only A reads from Event Hubs.
    fx.subscriber = await subscribe(b, TENANT, DEVICES);
    injectReadings(fx.peer, DEVICES, 0, PER_DEVICE);
    const total = PER_DEVICE * DEVICES.length;
    const accepted = () => a.app.telemetry.pipeline.stats().accepted + b.app.telemetry.pipeline.stats().accepted;
    await eventually(() => accepted() >= total, 10_000, 'every event accepted');
    await eventually(
      () => DEVICES.every((d) => fx.subscriber!.of(d).at(-1)?.data['n'] === PER_DEVICE - 1),
      5000,
      'newest reading of every device on B',
    );
    await ingestionSettled(fx.peer, PARTITIONS, [a, b]);

    expect(accepted()).toBe(total);
    // Only the owning instance accepted a device's events: A exactly those of the devices it reads.
    expect(a.app.telemetry.pipeline.stats().accepted).toBe(PER_DEVICE * ofA.length);
    for (const d of DEVICES) {
      const owner = ownerOf(d) === 'a' ? a : b;
      // Only the owning instance accepted the device's events, each once, in order; seq is the
      // partition's sequence number (+1), shared with the other devices of that partition.
      expect(owner.app.telemetry.registry.last(TENANT, d)).toMatchObject({
        seq: expectedSeq(fx.peer, DEVICES, d, PER_DEVICE),
        data: { n: PER_DEVICE - 1 },
      });
      const received = fx.subscriber!.of(d);
      expect(new Set(received.map((r) => r.seq)).size).toBe(received.length);
      expect(received.map((r) => r.seq)).toEqual([...received.map((r) => r.seq)].sort((x, y) => x - y));
    }
    // Readings of A's devices reached the client on B over the Redis backplane.
    for (const d of ofA) expect(fx.subscriber!.of(d).length).toBeGreaterThan(0);
    // And B, whose client follows them, learnt their last readings from it (A's has no client there).
    for (const d of ofA)
      expect(b.app.telemetry.registry.last(TENANT, d)?.seq).toBe(a.app.telemetry.registry.last(TENANT, d)!.seq);
  }, 60_000);
});
