import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../src/realtime/device-registry.js';
import { ReadingPipeline, type ReadingPipelineOptions } from '../../src/realtime/reading-pipeline.js';
import type { SeqAllocator } from '../../src/realtime/seq-allocator.js';
import type { RawReading } from '../../src/wire/raw-reading.js';
import type { Reading } from '../../src/wire/reading.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';
import { LocalRedeliveryWindow } from '../../src/realtime/redelivery-window.js';
import { SeqRefused } from '../../src/wire/seq-refused.js';

/** A seq source answering when the test says, in any order: what a remote counter may look like. */
class HeldAllocator implements SeqAllocator {
  readonly asked: { deviceId: string; floor: number; resolve: (n: number) => void; reject: (e: Error) => void }[] = [];
  next(_tenantId: string, deviceId: string, floor: number): Promise<number> {
    return new Promise((resolve, reject) => this.asked.push({ deviceId, floor, resolve, reject }));
  }
}

const raw = (deviceId: string, body: object, sequence?: number): RawReading => ({
  tenantId: 'demo',
  deviceId,
  payload: new TextEncoder().encode(JSON.stringify(body)),
  ...(sequence !== undefined ? { sequence } : {}),
});

/** A lease holder's pipeline on a held seq source, with the options a case adds. */
function leasedPipeline(options: Pick<ReadingPipelineOptions, 'redelivery' | 'holds'>) {
  const seq = new HeldAllocator();
  const published: Reading[] = [];
  const pipeline = new ReadingPipeline({
    registry: new DeviceRegistry({}),
    publish: (r) => published.push(r),
    logger: { warn: () => undefined },
    clock: new ManualClock(),
    maxPerSecond: Infinity,
    seq,
    ...options,
  });
  return { seq, published, pipeline };
}

function setup(maxPendingSeq?: number) {
  const seq = new HeldAllocator();
  const registry = new DeviceRegistry({ maxDevicesPerTenant: 3 });
  const published: Reading[] = [];
  const warnings: string[] = [];
  const pipeline = new ReadingPipeline({
    registry,
    publish: (r) => published.push(r),
    logger: { warn: (_obj, msg) => warnings.push(msg) },
    clock: new ManualClock(),
    maxPerSecond: Infinity,
    seq,
    ...(maxPendingSeq !== undefined ? { maxPendingSeq } : {}),
  });
  return { seq, registry, published, warnings, pipeline };
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('ReadingPipeline with a seq from elsewhere (the cluster counter)', () => {
  it('publishes readings in arrival order with the seq they were given, whichever answer comes first', async () => {
    const { seq, published, pipeline } = setup();
    for (const n of [1, 2, 3]) expect(pipeline.offer(raw(`d${n}`, { n }))).toMatchObject({ accepted: true });
    seq.asked[2]!.resolve(40);
    seq.asked[1]!.resolve(30);
    await tick();
    expect(published).toEqual([]);
    seq.asked[0]!.resolve(20);
    await pipeline.settled();
    expect(published.map((r) => [r.deviceId, r.seq, r.data['n']])).toEqual([
      ['d1', 20, 1],
      ['d2', 30, 2],
      ['d3', 40, 3],
    ]);
  });

  it('asks above the last seq it knows, and never goes below it even when the counter lost its data', async () => {
    const { seq, published, pipeline } = setup();
    pipeline.offer(raw('d', { n: 1 }));
    seq.asked[0]!.resolve(7);
    await pipeline.settled();
    pipeline.offer(raw('d', { n: 2 }));
    expect(seq.asked[1]!.floor).toBe(7);
    // A counter that restarted empty answers 1: the device's subscribers already saw 7.
    seq.asked[1]!.resolve(1);
    await pipeline.settled();
    expect(published.map((r) => r.seq)).toEqual([7, 8]);
  });

  it('counts on from the last seq it knows when the counter fails, and says so once per interval', async () => {
    const { seq, published, warnings, pipeline } = setup();
    pipeline.offer(raw('d', { n: 1 }));
    seq.asked[0]!.resolve(5);
    await pipeline.settled();
    pipeline.offer(raw('d', { n: 2 }));
    pipeline.offer(raw('d', { n: 3 }));
    seq.asked[2]!.reject(new Error('redis down'));
    seq.asked[1]!.reject(new Error('redis down'));
    await pipeline.settled();
    expect(published.map((r) => r.seq)).toEqual([5, 6, 7]);
    // Said once for both: a counter that is down fails every reading.
    expect(warnings.filter((w) => w === 'seq not allocated; counted locally')).toHaveLength(1);
  });

  it('keeps a transport-numbered reading behind readings still waiting for their seq', async () => {
    const { seq, published, pipeline } = setup();
    pipeline.offer(raw('a', { n: 1 }));
    pipeline.offer(raw('b', { n: 2 }, 100));
    await tick();
    expect(published).toEqual([]);
    seq.asked[0]!.resolve(1);
    await pipeline.settled();
    expect(published.map((r) => [r.deviceId, r.seq])).toEqual([
      ['a', 1],
      ['b', 100],
    ]);
  });

  it('refuses a device beyond the tenant limit before asking for a seq, and bounds the readings waiting', async () => {
    const { seq, pipeline } = setup(3);
    for (const d of ['a', 'b', 'c']) pipeline.offer(raw(d, {}));
    expect(pipeline.offer(raw('d', {}))).toEqual({ accepted: false, reason: 'backlog' });
    for (const asked of seq.asked) asked.resolve(1);
    await pipeline.settled();
    expect(pipeline.offer(raw('new-device', {}))).toEqual({ accepted: false, reason: 'device_limit' });
    expect(seq.asked).toHaveLength(3);
    expect(pipeline.stats().dropped.backlog).toBe(1);
  });

  it('a resendable reading refused its seq after it was taken in: its outcome says fenced, and the same message delivered again counts as new', async () => {
    const { seq, published, pipeline } = leasedPipeline({
      redelivery: new LocalRedeliveryWindow({ windowMs: 60_000, clock: new ManualClock() }),
    });
    const delivery = (): RawReading => ({ ...raw('d', { msgId: 'm-1', n: 1 }), resendable: true, fence: 1 });
    const first = pipeline.offer(delivery());
    expect(first.accepted).toBe(true);
    // The source acknowledges only what settles as accepted.
    const outcome = first.accepted ? first.settled : undefined;
    expect(outcome).toBeDefined();
    seq.asked[0]!.reject(new SeqRefused(1));
    expect(await outcome).toEqual({ accepted: false, reason: 'fenced' });
    expect(published).toEqual([]);

    // The broker sends it again (it was never acknowledged): a seq, not `redelivered`.
    const again = pipeline.offer({ ...delivery(), fence: 2 });
    seq.asked[1]!.resolve(4);
    expect(again.accepted && (await again.settled)).toEqual({ accepted: true });
    expect(published.map((r) => r.seq)).toEqual([4]);
    expect(pipeline.stats().dropped.redelivered).toBe(0);
  });

  it('a reading of a holding that lapsed while it waited is handed on nowhere, whether its seq came or the counter failed: the broker keeps it for the next holding', async () => {
    let lasts = true;
    const { seq, published, pipeline } = leasedPipeline({ holds: (fence) => fence === 1 && lasts });
    const taken = (n: number) => {
      const result = pipeline.offer({ ...raw('d', { n }), fence: 1 });
      return result.accepted ? result.settled : Promise.resolve(result);
    };
    const counted = taken(1);
    const failed = taken(2);
    lasts = false; // its clock ran out while Redis answered (or did not)
    seq.asked[0]!.resolve(7);
    seq.asked[1]!.reject(new Error('Connection is closed.'));
    expect(await counted).toEqual({ accepted: false, reason: 'fenced' });
    expect(await failed).toEqual({ accepted: false, reason: 'fenced' });
    expect(published).toEqual([]);
    expect(pipeline.stats().dropped.fenced).toBe(2);
  });
});
