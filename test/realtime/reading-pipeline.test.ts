import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../src/realtime/device-registry.js';
import { emptyDropCounts } from '../../src/wire/drop-reason.js';
import { ReadingPipeline } from '../../src/realtime/reading-pipeline.js';
import type { RawReading } from '../../src/wire/raw-reading.js';
import type { Reading } from '../../src/wire/reading.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';

const WALL = 1_763_800_000_000;

function setup(options: { maxPerSecond?: number; publish?: (r: Reading) => void } = {}) {
  const clock = new ManualClock(WALL);
  const registry = new DeviceRegistry();
  const published: Reading[] = [];
  const warnings: { obj: object; msg: string }[] = [];
  const pipeline = new ReadingPipeline({
    registry,
    publish: options.publish ?? ((r) => published.push(r)),
    logger: { warn: (obj, msg) => warnings.push({ obj, msg }) },
    clock,
    maxPerSecond: options.maxPerSecond ?? Infinity,
  });
  return { clock, registry, published, warnings, pipeline };
}

const raw = (deviceId: string | undefined, body: unknown, tenantId: string | undefined = 'demo'): RawReading => ({
  tenantId,
  deviceId,
  payload: new TextEncoder().encode(typeof body === 'string' ? body : JSON.stringify(body)),
});

describe('ReadingPipeline', () => {
  it('publishes an accepted reading as the contract shapes it', () => {
    const { pipeline, published, clock } = setup();
    clock.advance(4);
    expect(pipeline.offer(raw('dev-001', { ts: WALL, temperature: 21.5 }))).toEqual({ accepted: true });
    expect(published).toEqual([
      { tenantId: 'demo', deviceId: 'dev-001', seq: 1, ts: WALL, receivedAt: WALL + 4, data: { temperature: 21.5 } },
    ]);
  });

  it('loses no good reading among 10k malformed ones, and counts each drop by reason', () => {
    const { pipeline, published } = setup();
    const bad = [
      raw(undefined, {}),
      raw('dev', {}, 'bad tenant'),
      raw('dev', 'not json'),
      raw('dev', [1]),
      raw('dev', { ts: 'yesterday' }),
      { tenantId: 'demo', deviceId: 'dev', payload: new Uint8Array([0xc3]) },
      raw('dev', `{"a":${'['.repeat(40)}${']'.repeat(40)}}`),
      raw('dev', { s: 'x'.repeat(17_000) }),
    ];
    const good: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      expect(pipeline.offer(bad[i % bad.length]!).accepted).toBe(false);
      if (i % 10 === 0) {
        pipeline.offer(raw(`dev-${i % 7}`, { i }));
        good.push(i);
      }
    }
    expect(published.map((r) => r.data['i'])).toEqual(good);
    const stats = pipeline.stats();
    expect(stats.accepted).toBe(1000);
    expect(Object.values(stats.dropped).reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(stats.dropped).toEqual({
      ...emptyDropCounts(),
      bad_device_id: 1250,
      bad_tenant_id: 1250,
      bad_json: 1250,
      not_object: 1250,
      bad_ts: 1250,
      bad_utf8: 1250,
      too_deep: 1250,
      too_large: 1250,
    });
  });

  it('says why a reading was dropped', () => {
    const { pipeline } = setup();
    expect(pipeline.offer(raw('dev', '[]'))).toEqual({ accepted: false, reason: 'not_object' });
  });

  it('numbers each device’s readings from 1 upwards, independently of other devices', () => {
    const { pipeline, published } = setup();
    for (let i = 0; i < 3; i++) {
      pipeline.offer(raw('a', { i }));
      pipeline.offer(raw('b', { i }));
    }
    expect(published.filter((r) => r.deviceId === 'a').map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(published.filter((r) => r.deviceId === 'b').map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it('keeps seq increasing after the device went idle and the throttle forgot it', () => {
    const { pipeline, published, clock } = setup({ maxPerSecond: 5 });
    pipeline.offer(raw('dev', { v: 1 }));
    pipeline.offer(raw('dev', { v: 2 }));
    clock.advance(60_000);
    pipeline.offer(raw('dev', { v: 3 }));
    expect(published.map((r) => r.seq)).toEqual([1, 2, 3]);
  });

  it('records every accepted reading as the device’s last, throttled or not', () => {
    const { pipeline, registry, published } = setup({ maxPerSecond: 1 });
    for (let v = 1; v <= 5; v++) pipeline.offer(raw('dev', { v }));
    expect(published).toHaveLength(1);
    expect(registry.last('demo', 'dev')).toMatchObject({ seq: 5, data: { v: 5 } });
  });

  it('throttles per device and reports conflated and emitted', () => {
    const { pipeline, clock, published } = setup({ maxPerSecond: 5 });
    for (let v = 1; v <= 100; v++) {
      pipeline.offer(raw('dev', { v }));
      clock.advance(10);
    }
    clock.advance(1000);
    const stats = pipeline.stats();
    expect(stats.emitted).toBe(published.length);
    expect(stats.accepted).toBe(100);
    expect(stats.conflated).toBe(100 - published.length);
    expect(published.at(-1)!.data).toEqual({ v: 100 });
  });

  it('flush publishes what the throttle still holds', () => {
    const { pipeline, published } = setup({ maxPerSecond: 1 });
    pipeline.offer(raw('a', { v: 1 }));
    pipeline.offer(raw('a', { v: 2 }));
    pipeline.flush();
    expect(published.map((r) => r.data['v'])).toEqual([1, 2]);
  });

  it('warns about drops at most once per reason per 10 s, telling how many it held back', () => {
    const { pipeline, warnings, clock } = setup();
    for (let i = 0; i < 50; i++) pipeline.offer(raw('dev', 'nope'));
    pipeline.offer(raw('dev', '1'));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toEqual({
      msg: 'reading dropped',
      obj: expect.objectContaining({ reason: 'bad_json', tenantId: 'demo', deviceId: 'dev', suppressed: 0 }),
    });
    expect(warnings[1]!.obj).toMatchObject({ reason: 'not_object' });
    clock.advance(9_999);
    pipeline.offer(raw('dev', 'nope'));
    expect(warnings).toHaveLength(2);
    clock.advance(1);
    pipeline.offer(raw('dev', 'nope'));
    expect(warnings).toHaveLength(3);
    expect(warnings[2]!.obj).toMatchObject({ reason: 'bad_json', suppressed: 50 });
  });

  it('keeps logged ids short when a device sends a huge one', () => {
    const { pipeline, warnings } = setup();
    pipeline.offer(raw('d'.repeat(10_000), {}));
    expect((warnings[0]!.obj as { deviceId: string }).deviceId.length).toBeLessThanOrEqual(65);
  });

  it('does not throw when publishing fails, and logs it', () => {
    const { pipeline, warnings } = setup({
      publish: () => {
        throw new Error('transport down');
      },
    });
    expect(pipeline.offer(raw('dev', { v: 1 }))).toEqual({ accepted: true });
    expect(warnings).toEqual([{ msg: 'publish failed', obj: expect.objectContaining({ deviceId: 'dev' }) }]);
  });

  it('hands a held reading from the throttle straight to publish, without coming back through the pipeline', () => {
    const stacks: string[] = [];
    const { pipeline, clock } = setup({ maxPerSecond: 1, publish: () => stacks.push(new Error('where').stack ?? '') });
    pipeline.offer(raw('dev', { v: 1 }));
    pipeline.offer(raw('dev', { v: 2 })); // held by the throttle, published by its timer
    clock.advance(1000);
    expect(stacks).toHaveLength(2);
    expect(stacks[1]).toMatch(/device-throttle/);
    expect(stacks[1]).not.toMatch(/src\/ingest\/reading-pipeline/);
  });

  it("logs an accepted reading's traceparent at debug with its seq, and nothing for readings without one", () => {
    const debug: { obj: object; msg: string }[] = [];
    const pipeline = new ReadingPipeline({
      registry: new DeviceRegistry(),
      publish: () => undefined,
      logger: { warn: () => undefined, debug: (obj, msg) => debug.push({ obj, msg }) },
      clock: new ManualClock(WALL),
      maxPerSecond: Infinity,
    });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    pipeline.offer(raw('dev', { v: 1 }));
    pipeline.offer({ ...raw('dev', { v: 2 }), traceparent });
    expect(debug).toEqual([
      { msg: 'reading accepted', obj: { tenantId: 'demo', deviceId: 'dev', seq: 2, traceparent } },
    ]);
  });
});

describe('ReadingPipeline with transport-numbered readings (Event Hubs)', () => {
  it("uses the transport's sequence as seq, so seq continues on whichever instance reads the device next", () => {
    const { pipeline, published } = setup();
    pipeline.offer({ ...raw('dev-1', { v: 1 }), sequence: 501 });
    pipeline.offer({ ...raw('dev-1', { v: 2 }), sequence: 507 });
    pipeline.offer(raw('dev-1', { v: 3 })); // the same device over MQTT continues from there
    expect(published.map((r) => r.seq)).toEqual([501, 507, 508]);
  });

  it('drops a repeated delivery (at or below the last seq) and counts it as duplicate', () => {
    const { pipeline, published } = setup();
    pipeline.offer({ ...raw('dev-1', { v: 1 }), sequence: 10 });
    expect(pipeline.offer({ ...raw('dev-1', { v: 1 }), sequence: 10 })).toEqual({
      accepted: false,
      reason: 'duplicate',
    });
    expect(pipeline.offer({ ...raw('dev-1', { v: 0 }), sequence: 9 })).toEqual({
      accepted: false,
      reason: 'duplicate',
    });
    expect(published.map((r) => r.seq)).toEqual([10]);
    expect(pipeline.stats().dropped.duplicate).toBe(2);
  });
});

describe('ReadingPipeline recalling what the cluster accepted (an Event Hubs partition changed owner)', () => {
  /** A pipeline whose recall stands for the shared last values: another instance accepted dev-1 up to seq 12. */
  function withRecall() {
    const registry = new DeviceRegistry();
    const published: Reading[] = [];
    const recalls: string[] = [];
    const pipeline = new ReadingPipeline({
      registry,
      publish: (r) => published.push(r),
      logger: { warn: () => undefined },
      clock: new ManualClock(WALL),
      maxPerSecond: Infinity,
      recall: async (tenantId, deviceId) => {
        recalls.push(deviceId);
        await Promise.resolve();
        if (deviceId === 'dev-1')
          registry.recordIfNewer({ tenantId, deviceId, seq: 12, ts: WALL, receivedAt: WALL, data: { v: 12 } });
      },
    });
    return { pipeline, published, recalls };
  }

  it('drops a re-read copy the previous owner accepted, and accepts the ones it did not, in order', async () => {
    const { pipeline, published, recalls } = withRecall();
    for (const sequence of [11, 12, 13, 14])
      pipeline.offer({ ...raw('dev-1', { v: sequence }), sequence, redelivered: true });
    pipeline.offer({ ...raw('dev-2', { v: 1 }), sequence: 15, redelivered: true });
    // Past the re-read batch: no round trip, but still behind the ones waiting.
    pipeline.offer({ ...raw('dev-1', { v: 16 }), sequence: 16 });
    await pipeline.settled();
    expect(published.map((r) => [r.deviceId, r.seq])).toEqual([
      ['dev-1', 13],
      ['dev-1', 14],
      ['dev-2', 15],
      ['dev-1', 16],
    ]);
    expect(pipeline.stats().dropped.duplicate).toBe(2);
    expect(recalls).toEqual(['dev-1', 'dev-1', 'dev-1', 'dev-1', 'dev-2']);
  });

  it('asks nothing for a reading the transport does not mark as possibly delivered before', () => {
    const { pipeline, published, recalls } = withRecall();
    expect(pipeline.offer({ ...raw('dev-1', { v: 5 }), sequence: 5 })).toEqual({ accepted: true });
    expect(published.map((r) => r.seq)).toEqual([5]);
    expect(recalls).toEqual([]);
  });
});

describe('ReadingPipeline device quota', () => {
  it('drops the readings of a device the registry has no room for, counted as device_limit', () => {
    const published: Reading[] = [];
    const pipeline = new ReadingPipeline({
      registry: new DeviceRegistry({ maxDevicesPerTenant: 1 }),
      publish: (r) => published.push(r),
      logger: { warn: () => undefined },
      clock: new ManualClock(WALL),
      maxPerSecond: Infinity,
    });
    expect(pipeline.offer(raw('dev-001', { n: 1 }))).toEqual({ accepted: true });
    expect(pipeline.offer(raw('dev-002', { n: 1 }))).toEqual({ accepted: false, reason: 'device_limit' });
    expect(pipeline.offer(raw('dev-001', { n: 2 }))).toEqual({ accepted: true });
    expect(pipeline.stats().dropped.device_limit).toBe(1);
    expect(published.map((r) => [r.deviceId, r.seq])).toEqual([
      ['dev-001', 1],
      ['dev-001', 2],
    ]);
  });
});

describe('ReadingPipeline room (backpressure)', () => {
  it('is ready while the store has room, counting readings that wait for their seq as already placed', async () => {
    const stored: Reading[] = [];
    const capacity = 2;
    let wake: (() => void) | undefined;
    const answers: ((n: number) => void)[] = [];
    const pipeline = new ReadingPipeline({
      registry: new DeviceRegistry(),
      publish: () => undefined,
      logger: { warn: () => undefined },
      clock: new ManualClock(WALL),
      maxPerSecond: Infinity,
      // A seq source that answers later (Redis, in a cluster).
      seq: { next: () => new Promise<number>((resolve) => answers.push(resolve)) },
      accepted: (r) => stored.push(r),
      room: (reserved) =>
        stored.length + reserved < capacity ? undefined : new Promise<void>((resolve) => (wake = resolve)),
    });
    expect(pipeline.ready()).toBeUndefined();
    pipeline.offer(raw('dev-1', { n: 1 }));
    expect(pipeline.ready()).toBeUndefined();
    pipeline.offer(raw('dev-1', { n: 2 }));
    // Nothing stored yet, but two readings are on their way: no room for a third.
    expect(stored).toHaveLength(0);
    const waiting = pipeline.ready();
    expect(waiting).toBeInstanceOf(Promise);
    answers.forEach((answer, i) => answer(i + 1));
    await pipeline.settled();
    expect(stored.map((r) => r.data)).toEqual([{ n: 1 }, { n: 2 }]);
    stored.length = 0;
    wake?.();
    await waiting;
    expect(pipeline.ready()).toBeUndefined();
  });
});

describe('ReadingPipeline and the throttle', () => {
  it('readings that waited together for their seq are throttled by when they arrived: those an interval apart are all published', async () => {
    const clock = new ManualClock(WALL);
    const answers: ((n: number) => void)[] = [];
    const published: unknown[] = [];
    const pipeline = new ReadingPipeline({
      registry: new DeviceRegistry(),
      publish: (r) => published.push(r.data),
      logger: { warn: () => undefined },
      clock,
      maxPerSecond: 5, // one per 200 ms
      seq: { next: () => new Promise<number>((resolve) => answers.push(resolve)) },
    });
    // Arrived 250 ms apart while Redis was slow to answer; all answered at once.
    for (const n of [1, 2, 3]) {
      pipeline.offer(raw('dev-1', { n }));
      clock.advance(250);
    }
    answers.forEach((answer, i) => answer(i + 1));
    await pipeline.settled();
    clock.advance(200);
    expect(published).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });
});
