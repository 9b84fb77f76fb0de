import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type RunningApp } from '../../support/app-harness.js';
import { startChildHub, type ChildHub } from '../../support/child-hub.js';
import { requireService } from '../../support/services.js';
import type { EventHubsPeer } from '../../support/eventhubs-peer/eventhubs-peer.js';
import {
  deleteCheckpointKeys,
  inspectRedis,
  ownerIdOf,
  ownership,
  pollPause,
  REDIS_URL,
  startHub,
  startPeer,
  subscribe,
  uniqueName,
  type Subscriber,
  type WireReading,
} from './e2e-support.js';
import { PacedPublisher } from './paced-publisher.js';
import type { Redis } from 'ioredis';

/**
 * Issue 31 item 3: hub instances sharing Redis split the event hub's partitions through the SDK's
 * load balancing. Three full instances in this process (their pipeline counters are read to show
 * nothing is accepted twice) and one built hub as a child process (npm run build), killed with
 * SIGKILL; the AMQP test peer with six partitions; one subscriber on instance a throughout.
 */
const PARTITIONS = 6;
const TENANT = 'ehparts';
const BALANCING_SECONDS = 0.2;
const EXPIRY_SECONDS = 8;
/** A stopped instance's partitions are read elsewhere within this: a few balancing loops, far below the expiry. */
const GRACEFUL_MOVE_MS = 3000;
/** A killed instance's partitions are read elsewhere within this after the kill: the expiry and a few loops. */
const CRASH_MOVE_MS = EXPIRY_SECONDS * 1000 + 3000;

const hasRedis = await requireService('Redis', 6379);

/** Two devices per partition (the peer hashes the partition key as the service does: stably). */
function devicesFor(peer: EventHubsPeer): string[] {
  const perPartition = new Map<string, string[]>();
  for (let i = 0; [...perPartition.values()].filter((d) => d.length === 2).length < PARTITIONS; i++) {
    const deviceId = `meter-${i}`;
    const partition = peer.partitionFor(deviceId);
    const devices = perPartition.get(partition) ?? [];
    if (devices.length < 2) perPartition.set(partition, [...devices, deviceId]);
  }
  return [...perPartition.values()].flat();
}

/** An instance as the test sees it: its owner id in the checkpoint store and how to end it. */
interface Instance {
  name: string;
  ownerId: string;
  app?: RunningApp;
  child?: ChildHub;
  stopped?: boolean;
}

/**
 * Waits until every partition is owned by one of `instances`, as evenly as they can share, each read
 * by exactly its owner's receiver at the peer, and that holds for four polls in a row (a receiver
 * detached by a hand-over reattaches once). Resolves with the ms it took and the owners.
 */
async function balanced(
  redis: Redis,
  peer: EventHubsPeer,
  instances: Instance[],
  timeoutMs: number,
): Promise<{ ms: number; owners: Map<string, string> }> {
  const started = Date.now();
  const ids = new Set(instances.map((i) => i.ownerId));
  const fair = [Math.floor(PARTITIONS / ids.size), Math.ceil(PARTITIONS / ids.size)];
  let owners = new Map<string, string>();
  let stable = 0;
  let firstStable = 0;
  while (stable < 4) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`not balanced: ${JSON.stringify([...owners])}, readers ${JSON.stringify(peer.openReceivers())}`);
    owners = await ownership(redis, peer);
    const readers = peer.openReceivers();
    const shares = [...ids].map((id) => [...owners.values()].filter((o) => o === id).length);
    const ok =
      owners.size === PARTITIONS &&
      [...owners.values()].every((o) => ids.has(o)) &&
      shares.every((s) => s >= fair[0]! && s <= fair[1]!) &&
      readers.length === PARTITIONS &&
      [...owners].every(([p, o]) => readers.filter((r) => r.partitionId === p && r.receiverName === o).length === 1);
    if (ok && stable === 0) firstStable = Date.now();
    stable = ok ? stable + 1 : 0;
    await pollPause(100);
  }
  return { ms: firstStable - started, owners };
}

/**
 * What a subscriber saw of each device since round `from`: every reading at most once, in
 * publishing order, with strictly increasing `seq`, ending with round `to`. Returns how many it
 * did not see (readings the throttle replaced by a newer one of the same device).
 */
function missedReadings(subscriber: Subscriber, devices: string[], from: number, to: number): number {
  let missed = 0;
  for (const deviceId of devices) {
    const got = subscriber.of(deviceId).filter((r) => (r.data['n'] as number) >= from);
    const ns = got.map((r) => r.data['n'] as number);
    const seqs = got.map((r: WireReading) => r.seq);
    expect(ns, `${deviceId}: each reading once, in order`).toEqual([...new Set(ns)].sort((a, b) => a - b));
    expect(seqs, `${deviceId}: seq strictly increasing`).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    expect(ns.at(-1), `${deviceId}: the newest reading`).toBe(to);
    missed += to - from + 1 - ns.length;
  }
  return missed;
}

/** Sums of the in-process instances' pipeline counters; the stopped ones' stay counted. */
interface Counts {
  accepted: number;
  duplicate: number;
  conflated: number;
}

describe.skipIf(!hasRedis)('Event Hubs end to end: partitions across three instances', () => {
  let peer: EventHubsPeer;
  let redis: Redis;
  let devices: string[];
  let publisher: PacedPublisher;
  let subscriber: Subscriber;
  const instances: Instance[] = [];
  const hubName = uniqueName('e2e_');
  const args = [
    `--ConnectionStrings:redis=${REDIS_URL}`,
    `--Hub:Name=${hubName}`,
    '--Ingestion:EventHubs:TrustSenderDeviceId=true',
    '--Throttle:MaxPerSecondPerDevice=1000',
    `--Ingestion:EventHubs:OwnershipExpirationSeconds=${EXPIRY_SECONDS}`,
  ];
  const live = () => instances.filter((i) => !i.stopped);
  const named = (name: string) => instances.find((i) => i.name === name)!;
  const counts = (): Counts => {
    const stats = instances.flatMap((i) => (i.app ? [i.app.app.telemetry.pipeline.stats()] : []));
    return {
      accepted: stats.reduce((sum, s) => sum + s.accepted, 0),
      duplicate: stats.reduce((sum, s) => sum + s.dropped.duplicate, 0),
      conflated: stats.reduce((sum, s) => sum + s.conflated, 0),
    };
  };

  async function startInProcess(name: string): Promise<Instance> {
    const app = await startHub(peer, TENANT, args);
    const instance = { name, app, ownerId: '' };
    instances.push(instance);
    await eventually(() => ownerIdOf(app) !== undefined, 10_000, `${name}'s Event Hubs owner id`);
    instance.ownerId = ownerIdOf(app)!;
    return instance;
  }

  async function startChild(name: string): Promise<Instance> {
    const child = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        '--Simulator:Devices=0',
        `--ConnectionStrings:eventhubs=${peer.connectionString}`,
        `--Ingestion:EventHubs:Tenant=${TENANT}`,
        `--Ingestion:EventHubs:LoadBalancingIntervalSeconds=${BALANCING_SECONDS}`,
        ...args,
      ],
      {},
      60_000,
    );
    const instance: Instance = { name, child, ownerId: '' };
    instances.push(instance);
    const ownerId = () => /eventhubs connected[\s\S]*?ownerId: "([^"]+)"/.exec(child.output())?.[1];
    await eventually(() => ownerId() !== undefined, 10_000, `${name}'s Event Hubs owner id in its log`);
    instance.ownerId = ownerId()!;
    return instance;
  }

  /** The newest round the subscriber has of every device (-1 before any). */
  const newestEverywhere = () => Math.min(...devices.map((d) => Number(subscriber.of(d).at(-1)?.data['n'] ?? -1)));

  /**
   * Publishes while `change` runs: readings reach the subscriber before it and again after it, then
   * the publisher pauses; resolves once the subscriber has the last round.
   */
  async function publishThrough(change: () => Promise<void>): Promise<{ from: number; to: number }> {
    const from = publisher.last + 1;
    publisher.start();
    await eventually(() => newestEverywhere() >= from, 15_000, 'readings flowing before the change');
    await change();
    const changed = publisher.last;
    await eventually(() => newestEverywhere() > changed, 15_000, 'readings flowing after the change');
    await publisher.pause();
    const to = publisher.last;
    await eventually(() => newestEverywhere() === to, 15_000, 'the last round at the subscriber');
    return { from, to };
  }

  beforeAll(async () => {
    if (!hasRedis) return;
    peer = await startPeer(PARTITIONS);
    redis = await inspectRedis();
    devices = devicesFor(peer);
    publisher = new PacedPublisher(peer.connectionString, TENANT, devices);
  });

  afterAll(async () => {
    if (!hasRedis) return;
    subscriber?.socket.close();
    await publisher?.close();
    for (const i of instances) if (!i.stopped) await (i.app ? i.app.stop() : i.child!.stop());
    await peer?.close();
    if (redis) {
      await deleteCheckpointKeys(redis, peer);
      const keys = await redis.keys(`telemetry-hub:${hubName}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
  }, 60_000);

  it('(a) once balanced, every partition is owned by exactly one instance and read by it alone', async () => {
    const started = await Promise.all(['a', 'b', 'c'].map((name) => startInProcess(name)));
    expect(new Set(started.map((i) => i.ownerId)).size).toBe(3);
    const { owners } = await balanced(redis, peer, live(), 30_000);
    for (const i of started) expect([...owners.values()].filter((o) => o === i.ownerId)).toHaveLength(2);
    // Each instance is ready on its own: connected to the event hub, whatever it owns.
    for (const i of started) expect((await fetch(`${i.app!.url}/health/ready`)).status).toBe(200);
  }, 90_000);

  it('(b) readings published with a partition key per device reach a subscriber once each, in order', async () => {
    subscriber = await subscribe(named('a').app!, TENANT, devices);
    const { from, to } = await publishThrough(async () => undefined);
    // Every instance read some of them; the subscriber on A got them whoever read them. Each
    // reading was accepted once in the cluster, and the subscriber missed only what the throttle
    // replaced (a batch holding several readings of a device).
    const published = (to - from + 1) * devices.length;
    expect(counts().accepted).toBe(published);
    expect(missedReadings(subscriber, devices, from, to)).toBe(counts().conflated);
  }, 30_000);

  it('(c) a stopped instance: its partitions move within a few balancing loops and resume from their checkpoints', async () => {
    const before = counts();
    let moveMs = 0;
    const { from, to } = await publishThrough(async () => {
      const b = named('b');
      const stopping = b.app!.stop();
      b.stopped = true;
      moveMs = (await balanced(redis, peer, live(), GRACEFUL_MOVE_MS + 5000)).ms;
      await stopping;
    });
    expect(moveMs).toBeLessThanOrEqual(GRACEFUL_MOVE_MS);
    const after = counts();
    // Nothing lost, nothing accepted twice: B handed over what it read and checkpointed it.
    expect(after.accepted - before.accepted).toBe((to - from + 1) * devices.length);
    expect(missedReadings(subscriber, devices, from, to)).toBe(after.conflated - before.conflated);
  }, 60_000);

  it('(e) an instance started later takes its share', async () => {
    let k: Instance | undefined;
    const { from, to } = await publishThrough(async () => {
      // A real process, so that it can be killed outright next.
      k = await startChild('k');
      // No bound on how fast a newcomer gets its share (a busy machine slows the balancing loops);
      // only that it gets it.
      const { owners } = await balanced(redis, peer, live(), 45_000);
      expect([...owners.values()].filter((o) => o === k!.ownerId)).toHaveLength(PARTITIONS / 3);
      expect((await fetch(`${k!.child!.url}/health/ready`)).status).toBe(200);
    });
    // The instance that gave a partition up may have read a batch past its checkpoint; the new
    // owner reads it again and recognises what was accepted (dropped as `duplicate`, not shown twice).
    missedReadings(subscriber, devices, from, to);
  }, 90_000);

  it('(d) a killed instance: its partitions are read elsewhere once its ownership expired, from their checkpoints', async () => {
    let moveMs = 0;
    const { from, to } = await publishThrough(async () => {
      const k = named('k');
      k.child!.child.kill('SIGKILL');
      k.stopped = true;
      moveMs = (await balanced(redis, peer, live(), CRASH_MOVE_MS + 5000)).ms;
    });
    // Not before the expiry (nobody released them), within a few loops after it.
    expect(moveMs).toBeGreaterThanOrEqual(EXPIRY_SECONDS * 1000 - 1000);
    expect(moveMs).toBeLessThanOrEqual(CRASH_MOVE_MS);
    // What the killed instance accepted and did not checkpoint is read again: its copies are not shown twice.
    missedReadings(subscriber, devices, from, to);
  }, 60_000);
});
