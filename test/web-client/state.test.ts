import { describe, expect, it } from 'vitest';
import type { Reading } from '../../src/wire/reading';
import { DeviceStore } from '../../web-client/src/state/device-store';
import { DeviceWindow } from '../../web-client/src/state/device-window';
import { FixedRing } from '../../web-client/src/state/fixed-ring';
import { GAP, MetricRing } from '../../web-client/src/state/metric-ring';
import { SeqGuard } from '../../web-client/src/state/seq-guard';

const reading = (seq: number, ts: number, data: Record<string, unknown> = { t: seq }, deviceId = 'dev-1'): Reading => ({
  tenantId: 'demo',
  deviceId,
  seq,
  ts,
  receivedAt: ts + 1,
  data,
});

describe('SeqGuard', () => {
  it('accepts increasing seq and drops duplicates and stale readings', () => {
    const g = new SeqGuard();
    expect(g.accept(5, 100)).toBe(true);
    expect(g.accept(5, 100)).toBe(false);
    expect(g.accept(4, 90)).toBe(false);
    expect(g.accept(7, 120)).toBe(true);
  });

  it('believes a lower seq only right after a reconnect and only when the hub accepted it later', () => {
    const g = new SeqGuard();
    g.accept(500, 1000);
    expect(g.accept(1, 2000)).toBe(false);
    g.markReconnect();
    expect(g.accept(499, 900)).toBe(false); // older: stale, not a restart
    expect(g.accept(1, 2000)).toBe(true); // restarted hub
    expect(g.accept(2, 2100)).toBe(true);
  });
});

describe('FixedRing', () => {
  it('keeps the newest values, oldest first', () => {
    const r = new FixedRing(3);
    for (const v of [1, 2, 3, 4, 5]) r.push(v);
    expect([r.at(0), r.at(1), r.at(2)]).toEqual([3, 4, 5]);
    expect(r.length).toBe(3);
  });
});

describe('MetricRing', () => {
  it('grows while rows are wanted and overwrites the oldest at maxRows', () => {
    const r = new MetricRing(2, 4);
    r.addMetric('a');
    for (let i = 0; i < 6; i++) r.push(i, new Map([['a', i * 10]]));
    expect(r.length).toBe(4);
    expect([0, 1, 2, 3].map((i) => r.timeAt(i))).toEqual([2, 3, 4, 5]);
    expect(r.valueAt('a', 3)).toBe(50);
  });

  it('evicts by time and fills missing metrics with NaN', () => {
    const r = new MetricRing();
    r.addMetric('a');
    r.push(1, new Map([['a', 1]]));
    r.addMetric('b');
    r.push(2, new Map([['b', 2]]));
    expect(r.valueAt('b', 0)).toBeNaN();
    expect(r.valueAt('a', 1)).toBeNaN();
    r.evictBefore(2);
    expect(r.length).toBe(1);
    expect(r.timeAt(0)).toBe(2);
  });
});

describe('DeviceWindow', () => {
  it('keeps only the window and one column per numeric metric', () => {
    const w = new DeviceWindow(1000);
    w.push(reading(1, 0, { t: 1, h: 2, label: 'x' }));
    w.push(reading(2, 600, { t: 3 }));
    w.push(reading(3, 1500, { t: 4 }));
    expect(w.ring.metrics).toEqual(['t', 'h']);
    expect(w.ring.length).toBe(2); // ts 0 fell out of [500, 1500]
    expect(w.latest.get('t')).toBe(4);
    expect(w.latest.get('h')).toBe(2);
  });

  it('marks a gap after a reconnect when seq skipped, and breaks the line there', () => {
    const w = new DeviceWindow(60_000);
    w.push(reading(1, 1000));
    w.push(reading(2, 2000));
    w.markReconnect();
    w.push(reading(9, 9000)); // e.g. the subscribe ack's `last`
    w.push(reading(10, 10_000));
    expect(w.gaps).toEqual([{ from: 2000, to: 9000 }]);
    const [xs, ys] = w.toAligned(['t'], 0, 60_000, 1000);
    expect(xs).toEqual([1, 2, 5.5, 9, 10]);
    expect(ys).toEqual([1, 2, null, 9, 10]);
  });

  it('marks no gap when nothing was missed', () => {
    const w = new DeviceWindow(60_000);
    w.push(reading(1, 1000));
    w.markReconnect();
    w.push(reading(2, 2000));
    expect(w.gaps).toEqual([]);
  });

  it('never lets x go backwards when a device clock steps back', () => {
    const w = new DeviceWindow(60_000);
    w.push(reading(1, 5000));
    w.push(reading(2, 4000));
    expect(w.ring.timeAt(1)).toBe(5000);
  });

  it('decimates to a min/max envelope per bucket and keeps gap rows', () => {
    const w = new DeviceWindow(60_000, 10_000);
    for (let i = 0; i < 1000; i++) w.push(reading(i + 1, i * 10, { t: i % 7 }));
    w.markReconnect();
    w.push(reading(2000, 10_000, { t: 3 }));
    const [xs, ys] = w.toAligned(['t'], 0, 10_000, 10);
    expect(xs.length).toBeLessThanOrEqual(2 * 10 + 3);
    expect(ys).toContain(null);
    const values = (ys as (number | null)[]).filter((v): v is number => typeof v === 'number');
    expect(Math.min(...values)).toBe(0);
    expect(Math.max(...values)).toBe(6);
    expect(GAP).toBe(Number.POSITIVE_INFINITY);
  });

  it('gives undefined (line continues) where a reading lacked a metric', () => {
    const w = new DeviceWindow(60_000);
    w.push(reading(1, 1000, { a: 1, b: 1 }));
    w.push(reading(2, 2000, { a: 2 }));
    const [, , b] = w.toAligned(['a', 'b'], 0, 60_000, 100);
    expect(b).toEqual([1, undefined]);
  });
});

describe('DeviceStore', () => {
  it('deduplicates by seq and feeds the followed window', () => {
    const s = new DeviceStore(60_000);
    const added: string[] = [];
    s.onAdded = (e) => added.push(e.id);
    s.upsertSummary({ deviceId: 'dev-1', lastSeen: 900, last: reading(3, 900) });
    const w = s.follow('dev-1');
    expect(w.ring.length).toBe(1); // seeded with the known last reading
    expect(s.ingest(reading(3, 900))).toBe(false);
    expect(s.ingest(reading(4, 1000))).toBe(true);
    expect(w.ring.length).toBe(2);
    expect(s.get('dev-1')?.lastSeen).toBe(1001);
    expect(s.get('dev-1')?.spark.length).toBe(2);
    expect(added).toEqual(['dev-1']);
    expect([...s.takeDirty()]).toEqual(['dev-1']);
    expect(s.takeDirty().size).toBe(0);
  });

  it('never moves lastSeen backwards from an older REST page', () => {
    const s = new DeviceStore(60_000);
    s.ingest(reading(10, 5000));
    s.upsertSummary({ deviceId: 'dev-1', lastSeen: 1000, last: reading(2, 1000) });
    expect(s.get('dev-1')?.lastSeen).toBe(5001);
    expect(s.get('dev-1')?.last?.seq).toBe(10);
  });
});
