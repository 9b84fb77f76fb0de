import { describe, expect, it } from 'vitest';
import type { Reading } from '../../src/wire/reading';
import { bucketFor, seriesRows } from '../../web-client/src/api/series-api';
import { DeviceWindow } from '../../web-client/src/state/device-window';
import { GAP } from '../../web-client/src/state/metric-ring';
import { windowLabel } from '../../web-client/src/ui/controls';

const HOUR = 3_600_000;
const reading = (seq: number, ts: number, t: number): Reading => ({
  tenantId: 'demo',
  deviceId: 'd',
  seq,
  ts,
  receivedAt: ts,
  data: { t },
});
const times = (w: DeviceWindow) => Array.from({ length: w.ring.length }, (_, i) => w.ring.timeAt(i));

describe('history windows', () => {
  it('picks the bucket that gives a chart a few hundred points: 1 h → 10s, 24 h → 5m, 7 d → 30m', () => {
    expect([HOUR, 24 * HOUR, 7 * 24 * HOUR].map((ms) => bucketFor(ms))).toEqual(['10s', '5m', '30m']);
    expect(bucketFor(60_000)).toBe('1s');
    expect(bucketFor(10 * 365 * 24 * HOUR)).toBe('1d');
    expect([60_000, 15 * 60_000, HOUR, 24 * HOUR, 7 * 24 * HOUR].map(windowLabel)).toEqual([
      '1 min',
      '15 min',
      '1 h',
      '24 h',
      '7 d',
    ]);
  });

  it('turns a series into chart rows: each bucket at its start, each numeric field at its average', () => {
    const rows = seriesRows({
      bucketMs: 60_000,
      points: [
        { t: 0, count: 3, fields: { t: { min: 1, max: 3, avg: 2 }, h: { min: 5, max: 5, avg: 5 } } },
        { t: 60_000, count: 1, fields: { t: { min: 4, max: 4, avg: 4 } } },
      ],
    });
    expect(rows).toEqual([
      {
        t: 0,
        values: new Map([
          ['t', 2],
          ['h', 5],
        ]),
      },
      { t: 60_000, values: new Map([['t', 4]]) },
    ]);
  });

  it('seeds history before the live readings, replaces an earlier seed, and keeps gaps and later live readings', () => {
    const now = 100 * HOUR;
    const w = new DeviceWindow(24 * HOUR);
    w.push(reading(1, now - 2000, 10));
    w.markReconnect();
    w.push(reading(5, now - 1000, 11)); // seq skipped: a gap row before it
    const hourly = Array.from({ length: 5 }, (_, i) => ({ t: now - (5 - i) * HOUR, values: new Map([['t', i]]) }));
    w.seedHistory(hourly);
    expect(times(w)).toEqual([...hourly.map((r) => r.t), now - 2000, now - 1500, now - 1000]);
    expect(w.ring.valueAt('t', 6)).toBe(GAP);
    // A finer seed (another window) replaces the first one entirely, live rows untouched.
    const fine = [
      { t: now - 4000, values: new Map([['h', 1]]) },
      { t: now - 3000, values: new Map([['t', 7]]) },
      { t: now - 2000, values: new Map([['t', 8]]) },
    ];
    w.seedHistory(fine);
    expect(times(w)).toEqual([now - 4000, now - 3000, now - 2000, now - 1500, now - 1000]);
    expect(w.ring.metrics).toEqual(['t', 'h']);
    // `h` is only in the history: its read-out is its stored value; `t` keeps the live one.
    expect(Object.fromEntries(w.latest)).toEqual({ t: 11, h: 1 });
    w.push(reading(6, now, 12));
    expect(times(w).at(-1)).toBe(now);
    expect(w.ring.valueAt('t', w.ring.length - 1)).toBe(12);
  });
});
