import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { Socket } from 'socket.io-client';
import { Redis } from 'ioredis';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { start, type EventHubsPeer } from '../../support/eventhubs-peer/eventhubs-peer.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export type { WireReading } from '../../../src/wire/reading.js';
import type { WireReading } from '../../../src/wire/reading.js';

/** A name unique to this run: hub names end up in checkpoint keys and backplane channels. */
export function uniqueName(prefix: string): string {
  return `${prefix}${randomBytes(5).toString('hex')}`;
}

/**
 * A peer whose hub name is unique to this run. Checkpoint keys are
 * `telemetry-hub:eventhubs:{namespace}/{hub}/{consumer group}:{ownership|checkpoints}`, so a unique hub
 * name keeps runs (and parallel test files) apart in a shared Redis without a prefix setting.
 */
export function startPeer(partitionCount: number): Promise<EventHubsPeer> {
  return start({ hubName: uniqueName('e2e'), partitionCount });
}

/** The peer's hub name (the connection string's EntityPath). */
export function hubNameOf(peer: EventHubsPeer): string {
  return /EntityPath=([^;]+)/.exec(peer.connectionString)![1]!;
}

/** The Redis hash keys the app's checkpoint store uses for this peer (default prefix, `$Default` group). */
export function checkpointKeys(peer: EventHubsPeer): { ownership: string; checkpoints: string } {
  const scope = `telemetry-hub:eventhubs:127.0.0.1/${hubNameOf(peer)}/$default`;
  return { ownership: `${scope}:ownership`, checkpoints: `${scope}:checkpoints` };
}

/**
 * The whole app reading the peer, every event belonging to `tenant` (`Ingestion:EventHubs:Tenant`);
 * `extra` are more `--Section:Key=value` overrides.
 */
export function startHub(peer: EventHubsPeer, tenant: string, extra: string[] = []): Promise<RunningApp> {
  // Fast load balancing: instances settle partitions in a fraction of a second instead of 10 s.
  return startApp([
    `--ConnectionStrings:eventhubs=${peer.connectionString}`,
    `--Ingestion:EventHubs:Tenant=${tenant}`,
    '--Ingestion:EventHubs:LoadBalancingIntervalSeconds=0.2',
    '--Ingestion:EventHubs:OwnershipExpirationSeconds=3',
    ...extra,
  ]);
}

/** The owner id the app's Event Hubs client claims partitions under (logged once it connected). */
export function ownerIdOf(hub: RunningApp): string | undefined {
  const line = hub.logs.find((l) => l['msg'] === 'eventhubs connected');
  return line?.['ownerId'] as string | undefined;
}

/**
 * Appends `count` readings per device to the partition the device's key hashes to, as IoT Hub does
 * (device id as partition key, stamped as `iothub-connection-device-id`). Payload `{ n, temperature }`,
 * n counting per device from `from`. The tenant is the hub's configuration, not a property of the event.
 */
export function injectReadings(peer: EventHubsPeer, deviceIds: string[], from: number, count: number): void {
  for (let n = from; n < from + count; n++) {
    for (const deviceId of deviceIds) {
      peer.injectEvent(peer.partitionFor(deviceId), Buffer.from(JSON.stringify({ n, temperature: 20 + n / 10 })), {
        annotations: { 'iothub-connection-device-id': deviceId },
        partitionKey: deviceId,
      });
    }
  }
}

/** A socket.io client subscribed to `deviceIds` of its tenant, collecting readings in arrival order. */
export interface Subscriber {
  socket: Socket;
  readings: WireReading[];
  of(deviceId: string): WireReading[];
}

export async function subscribe(hub: RunningApp, tenantId: string, deviceIds: string[]): Promise<Subscriber> {
  const socket = await connectTelemetry(hub.url, await userToken(tenantId));
  const readings: WireReading[] = [];
  socket.on('reading', (r: WireReading) => readings.push(r));
  for (const deviceId of deviceIds) {
    const ack = (await socket.emitWithAck('subscribe', { deviceId })) as { ok: boolean };
    if (!ack.ok) throw new Error(`subscribe ${deviceId} refused: ${JSON.stringify(ack)}`);
  }
  return { socket, readings, of: (deviceId) => readings.filter((r) => r.deviceId === deviceId) };
}

/** A Redis client for inspecting and deleting a run's checkpoint keys; fails fast. */
export async function inspectRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 1000,
    retryStrategy: () => null,
  });
  redis.on('error', () => {});
  await redis.connect();
  return redis;
}

/** Sum over partitions of (checkpointed sequence number + 1): the events the checkpoints cover. */
export async function checkpointedEvents(redis: Redis, peer: EventHubsPeer): Promise<number> {
  const entries = await redis.hgetall(checkpointKeys(peer).checkpoints);
  return Object.values(entries).reduce(
    (sum, json) => sum + (JSON.parse(json) as { sequenceNumber: number }).sequenceNumber + 1,
    0,
  );
}

/** Partition id → owner id, as stored (an empty owner id is an abandoned partition). */
export async function ownership(redis: Redis, peer: EventHubsPeer): Promise<Map<string, string>> {
  const entries = await redis.hgetall(checkpointKeys(peer).ownership);
  return new Map(
    Object.values(entries).map((json) => {
      const o = JSON.parse(json) as { partitionId: string; ownerId: string };
      return [o.partitionId, o.ownerId];
    }),
  );
}

export async function deleteCheckpointKeys(redis: Redis, peer: EventHubsPeer): Promise<void> {
  const { ownership: o, checkpoints: c } = checkpointKeys(peer);
  await redis.del(o, c);
}

/**
 * Appends one event every pipeline drops (not JSON) to each partition and waits until the hubs
 * dropped them all: every event appended before has been handed to a pipeline by then, so counts
 * taken after it are final. A barrier instead of a fixed wait for "nothing more arrives".
 */
export async function ingestionSettled(peer: EventHubsPeer, partitions: number, hubs: RunningApp[]): Promise<void> {
  const dropped = () => hubs.reduce((sum, h) => sum + h.app.telemetry.pipeline.stats().dropped.bad_json, 0);
  const target = dropped() + partitions;
  for (let p = 0; p < partitions; p++) {
    peer.injectEvent(String(p), Buffer.from('barrier: not json'), {
      annotations: { 'iothub-connection-device-id': 'barrier' },
    });
  }
  await eventually(() => dropped() === target, 10_000, 'the barrier event of every partition');
}

/** A pause between polls of a condition checked with its own deadline. */
export function pollPause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The seq of a device's newest reading after `rounds` rounds of injectReadings: seq is the
 * partition's sequence number + 1, and each round adds one event per device, device by device, so
 * in a partition shared by k devices the i-th device's last event is number (rounds - 1)·k + i.
 */
export function expectedSeq(peer: EventHubsPeer, deviceIds: string[], deviceId: string, rounds: number): number {
  const sharing = deviceIds.filter((d) => peer.partitionFor(d) === peer.partitionFor(deviceId));
  return (rounds - 1) * sharing.length + sharing.indexOf(deviceId) + 1;
}

/** What a Redis-backed end-to-end suite shares: the test peer, a Redis to inspect, its hubs and subscriber. */
export interface RedisPeerFixture {
  peer: EventHubsPeer;
  redis: Redis;
  readonly hubs: RunningApp[];
  subscriber: Subscriber | undefined;
}

/**
 * Starts a test peer and a Redis inspector before the suite, and after it stops every hub, the peer
 * and the subscriber and deletes the run's checkpoint keys.
 */
export function redisPeerFixture(partitions: number): RedisPeerFixture {
  const fx = { hubs: [] as RunningApp[], subscriber: undefined } as unknown as RedisPeerFixture;
  beforeAll(async () => {
    fx.peer = await startPeer(partitions);
    fx.redis = await inspectRedis();
  });
  afterAll(async () => {
    fx.subscriber?.socket.close();
    for (const hub of fx.hubs) await hub.stop();
    await fx.peer?.close();
    if (fx.redis) {
      await deleteCheckpointKeys(fx.redis, fx.peer);
      fx.redis.disconnect();
    }
  });
  return fx;
}
