import type { CheckpointStore } from '@azure/event-hubs';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryCheckpointStore } from '../../../src/adapters/memory/memory-checkpoint-store.js';
import { createEventHubsPublisher } from '../../../src/adapters/eventhubs/eventhubs-publisher.js';
import { start, type EventHubsPeer } from '../../support/eventhubs-peer/eventhubs-peer.js';
import type { StoreUnderTest } from '../../realtime/checkpoint-store.case.js';
import { redisOrReport, redisStoreUnderTest } from './redis-for-tests.js';
import { runSource } from './source-harness.js';
import { waitFor } from './wait-for.js';

const PARTITIONS = 4;
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

let peer: EventHubsPeer;
let cleanups: (() => Promise<void>)[] = [];
const track = (stop: () => Promise<void>): void => void cleanups.push(stop);

beforeEach(async () => {
  peer = await start({ hubName: 'telemetry', partitionCount: PARTITIONS });
});
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
  await peer.close();
});

/** Publishes `count` readings numbered from `from`, round robin over `devices` devices of tenant `acme`. */
async function publish(from: number, count: number, devices = 6): Promise<void> {
  const publisher = createEventHubsPublisher(peer.connectionString);
  try {
    await Promise.all(
      Array.from({ length: count }, (_, i) => {
        const n = from + i;
        return publisher.publish(
          'acme',
          `dev-${n % devices}`,
          { n, temperature: 20 + n / 10 },
          n % 2 === 0 ? TRACEPARENT : undefined,
        );
      }),
    );
  } finally {
    await publisher.close();
  }
}

/**
 * Appends a marker to every partition and waits until the sinks got them all: whatever the source
 * would hand over before them (a repeat after a restart, an event read twice) has arrived by then.
 */
let markers = 0;
async function barrier(...sinks: { payloads(): { marker?: number }[] }[]): Promise<void> {
  const round = ++markers * 100;
  for (let p = 0; p < PARTITIONS; p++) {
    peer.injectEvent(String(p), Buffer.from(JSON.stringify({ marker: round + p })), {
      properties: { tenant_id: 'acme', deviceId: 'marker' },
    });
  }
  const seen = () =>
    new Set(
      sinks
        .flatMap((s) => s.payloads().map((m) => m.marker))
        .filter((m) => m !== undefined && m >= round && m < round + 100),
    );
  await waitFor(`markers in all ${PARTITIONS} partitions`, () => seen().size === PARTITIONS);
}

const numbers = (payloads: { n?: number }[]): number[] =>
  payloads
    .map((p) => p.n)
    .filter((n): n is number => n !== undefined)
    .sort((a, b) => a - b);
const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

/** Waits until every partition with events has a checkpoint at its last event. */
async function waitForCheckpoints(store: CheckpointStore, total: number): Promise<void> {
  await waitFor(`checkpoints covering ${total} events`, async () => {
    const checkpoints = await store.listCheckpoints('127.0.0.1', 'telemetry', '$Default');
    return checkpoints.reduce((sum, c) => sum + c.sequenceNumber + 1, 0) === total;
  });
}

describe('EventHubsSource', () => {
  it('hands every event to the sink with tenant, device, payload and traceparent', async () => {
    await publish(0, 24);
    peer.injectEvent('1', Buffer.from('{"t":1}'), {
      annotations: { 'iothub-connection-device-id': 'iot-7' },
      properties: { tenant_id: 'acme' },
    });
    peer.injectEvent('2', { v: 2 }, { properties: { tenant_id: 'acme', deviceId: 'dev-value' } });
    peer.injectEvent('3', Buffer.from('not json'), { properties: { tenant_id: 'acme', deviceId: 'dev-bad' } });
    peer.injectEvent('3', Buffer.from('{"after":"bad"}'), { properties: { tenant_id: 'acme', deviceId: 'dev-bad' } });
    const { source, sink, stop } = runSource(peer.connectionString, new MemoryCheckpointStore(), track);

    await waitFor('28 readings', () => sink.readings.length === 28);
    expect(source.connected).toBe(true);
    const published = sink.readings.filter((r) => r.deviceId?.startsWith('dev-') && /^dev-\d$/.test(r.deviceId));
    expect(published).toHaveLength(24);
    for (const raw of published) {
      const payload = JSON.parse(Buffer.from(raw.payload).toString('utf8')) as { n: number; temperature: number };
      expect(raw).toMatchObject({ tenantId: 'acme', deviceId: `dev-${payload.n % 6}` });
      expect(payload.temperature).toBe(20 + payload.n / 10);
      expect(raw.traceparent).toBe(payload.n % 2 === 0 ? TRACEPARENT : undefined);
    }
    expect(numbers(sink.payloads())).toEqual(range(0, 24));

    const byDevice = (id: string) => sink.readings.filter((r) => r.deviceId === id);
    expect(byDevice('iot-7').map((r) => Buffer.from(r.payload).toString())).toEqual(['{"t":1}']);
    expect(byDevice('dev-value').map((r) => Buffer.from(r.payload).toString())).toEqual(['{"v":2}']);
    // The bad event is counted by the sink and the partition goes on.
    expect(byDevice('dev-bad').map((r) => Buffer.from(r.payload).toString())).toEqual(['not json', '{"after":"bad"}']);
    expect(sink.rejected).toEqual(['malformed']);

    await stop();
    expect(source.connected).toBe(false);
  });

  it("refuses a device id only the sender vouches for unless TrustSenderDeviceId: IoT Hub's authenticated id still passes", async () => {
    // A sender to the event hub names another tenant's device in `deviceId`; no IoT Hub stamped it.
    peer.injectEvent('0', Buffer.from('{"forged":1}'), { properties: { deviceId: 'boiler-1', tenant_id: 'globex' } });
    peer.injectEvent('0', Buffer.from('{"t":1}'), {
      annotations: { 'iothub-connection-device-id': 'iot-7' },
      properties: { deviceId: 'boiler-1' },
    });
    const tenancy = {
      tenant: undefined,
      deviceTenants: new Map([
        ['boiler-1', 'globex'],
        ['iot-7', 'acme'],
      ]),
      trustSenderDeviceId: false,
    };
    const { sink } = runSource(peer.connectionString, new MemoryCheckpointStore(), track, { tenancy });

    await waitFor('one reading and one refusal', () => sink.readings.length === 1 && sink.refusals.length === 1);
    expect(sink.readings[0]).toMatchObject({ tenantId: 'acme', deviceId: 'iot-7' });
    // Refused before it became a reading, with no tenant looked up for the claimed device.
    expect(sink.refusals[0]).toMatchObject({
      reason: 'untrusted_device_id',
      raw: { deviceId: 'boiler-1', tenantId: undefined },
    });
  });

  it('marks what an owner reads within a batch of where it began as possibly delivered before', async () => {
    // The previous owner may have handed over a whole batch past its checkpoint without writing it.
    const inject = (from: number, count: number) => {
      for (let n = from; n < from + count; n++)
        peer.injectEvent('0', Buffer.from(JSON.stringify({ n })), { properties: { deviceId: 'dev-0' } });
    };
    const store = new MemoryCheckpointStore();
    inject(0, 4);
    const first = runSource(peer.connectionString, store, track, { maxBatchSize: 3 });
    await waitFor('4 readings', () => first.sink.readings.length === 4);
    await waitForCheckpoints(store, 4);
    await first.stop();
    inject(4, 6);
    const second = runSource(peer.connectionString, store, track, { maxBatchSize: 3 });
    await waitFor('6 more readings', () => second.sink.readings.length === 6);
    const marked = (sink: typeof first.sink) => sink.readings.map((r) => r.redelivered === true);
    expect(marked(first.sink)).toEqual([true, true, true, false]);
    expect(marked(second.sink)).toEqual([true, true, true, false, false, false]);
    expect(numbers(second.sink.payloads())).toEqual(range(4, 6));
  });

  it('keeps reading events published while it runs', async () => {
    const { sink } = runSource(peer.connectionString, new MemoryCheckpointStore(), track);
    await waitFor('all partitions open', () => peer.openReceivers().length === PARTITIONS);
    await publish(0, 40);
    await waitFor('40 readings', () => sink.readings.length === 40);
    expect(numbers(sink.payloads())).toEqual(range(0, 40));
  });

  it('stays disconnected while the hub is unreachable and still stops promptly', async () => {
    // A listener that drops every connection: each attempt of the source is seen, none succeeds.
    let attempts = 0;
    const dropper = createServer((socket) => {
      attempts++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => dropper.close(() => resolve())));
    const unreachable = peer.connectionString.replace(`:${peer.port};`, `:${(dropper.address() as AddressInfo).port};`);
    const { source, stop } = runSource(unreachable, new MemoryCheckpointStore(), track);
    await waitFor('the source to try the hub twice', () => attempts >= 2);
    expect(source.connected).toBe(false);
    const stopping = Date.now();
    await stop();
    expect(Date.now() - stopping).toBeLessThan(5000);
  });
});

const stores: [string, () => Promise<StoreUnderTest>][] = [
  ['memory', async () => ({ store: new MemoryCheckpointStore(), dispose: async () => {} })],
];
if (await redisOrReport('EventHubsSource with RedisCheckpointStore')) stores.push(['redis', redisStoreUnderTest]);

describe.each(stores)('EventHubsSource with the %s checkpoint store', (_name, createStore) => {
  let store: CheckpointStore;
  beforeEach(async () => {
    const created = await createStore();
    store = created.store;
    cleanups.push(() => created.dispose());
  });

  it('resumes after a restart from the checkpoint: nothing twice, nothing skipped', async () => {
    await publish(0, 30);
    const first = runSource(peer.connectionString, store, track);
    await waitFor('first 30 readings', () => first.sink.readings.length === 30);
    await waitForCheckpoints(store, 30);
    await first.stop();

    await publish(30, 30);
    const second = runSource(peer.connectionString, store, track);
    await waitFor('next 30 readings', () => second.sink.readings.length >= 30);
    await barrier(second.sink);
    expect(numbers(second.sink.payloads())).toEqual(range(30, 30));
  });

  it('stopped mid-stream, repeats at most the batch in flight and skips nothing', async () => {
    const maxBatchSize = 10;
    await publish(0, 400, 16);
    const first = runSource(peer.connectionString, store, track, { maxBatchSize });
    await waitFor('some readings', () => first.sink.readings.length >= 40);
    await first.stop();
    const second = runSource(peer.connectionString, store, track, { maxBatchSize });
    const seen = () => new Set([...numbers(first.sink.payloads()), ...numbers(second.sink.payloads())]);
    await waitFor('all 400 readings', () => seen().size === 400);
    await barrier(second.sink);
    const handed = first.sink.readings.length + second.sink.readings.length - PARTITIONS;
    expect(handed - 400).toBeLessThanOrEqual(PARTITIONS * maxBatchSize);
    expect(first.sink.readings.length).toBeLessThan(400);
  });

  it('a second source takes over half the partitions: each owned once, every event delivered once', async () => {
    const a = runSource(peer.connectionString, store, track, { identifier: 'instance-a' });
    await waitFor('instance-a reading all partitions', () => peer.openReceivers().length === PARTITIONS);
    const b = runSource(peer.connectionString, store, track, { identifier: 'instance-b' });
    let stablePolls = 0;
    await waitFor(
      'balanced ownership, each partition read by its owner only',
      async () => {
        const ownership = await store.listOwnership('127.0.0.1', 'telemetry', '$Default');
        const owners = ownership.map((o) => o.ownerId);
        const readers = peer.openReceivers();
        const settled =
          ownership.length === PARTITIONS &&
          owners.filter((o) => o === 'instance-a').length === PARTITIONS / 2 &&
          owners.filter((o) => o === 'instance-b').length === PARTITIONS / 2 &&
          readers.length === PARTITIONS &&
          ownership.every(
            (o) => readers.filter((r) => r.partitionId === o.partitionId && r.receiverName === o.ownerId).length === 1,
          );
        // A receiver detached outside receiveBatch reattaches once (SDK), so require the state to hold.
        stablePolls = settled ? stablePolls + 1 : 0;
        return stablePolls >= 4;
      },
      15_000,
    );
    const ownership = await store.listOwnership('127.0.0.1', 'telemetry', '$Default');
    expect(new Set(ownership.map((o) => o.partitionId)).size).toBe(PARTITIONS);
    // instance-a lost half its partitions to a hand-over, not to an outage.
    expect(a.source.connected).toBe(true);

    await publish(0, 80, 16);
    await waitFor('80 readings', () => a.sink.readings.length + b.sink.readings.length >= 80);
    await barrier(a.sink, b.sink);
    expect(numbers([...a.sink.payloads(), ...b.sink.payloads()])).toEqual(range(0, 80));

    const ownerOf = new Map(ownership.map((o) => [o.partitionId, o.ownerId]));
    for (const [name, running] of [
      ['instance-a', a],
      ['instance-b', b],
    ] as const) {
      expect(running.sink.readings.length).toBeGreaterThan(0);
      for (const raw of running.sink.readings.filter((r) => r.deviceId !== 'marker'))
        expect(ownerOf.get(peer.partitionFor(raw.deviceId!))).toBe(name);
    }
  });
});
