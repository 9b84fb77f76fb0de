import { describe, expect, it } from 'vitest';
import { DeviceThrottle } from '../../src/realtime/device-throttle.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';

interface Sent {
  device: string;
  n: number;
}

function setup(maxPerSecond = 5) {
  const clock = new ManualClock();
  const emitted: (Sent & { at: number })[] = [];
  const throttle = new DeviceThrottle<Sent>({
    maxPerSecond,
    clock,
    emit: (v) => emitted.push({ ...v, at: clock.monotonicNow() }),
  });
  const send = (device: string, n: number) => throttle.offer(device, { device, n });
  return { clock, emitted, throttle, send };
}

describe('DeviceThrottle', () => {
  it('contract example: 100/s for 3 s with limit 5 emits 12–18, the last within 1 s after the burst', () => {
    const { clock, emitted, throttle, send } = setup(5);
    for (let n = 1; n <= 300; n++) {
      send('dev', n);
      clock.advance(10);
    }
    const burstEnd = clock.monotonicNow() - 10;
    clock.advance(1000);

    expect(emitted.length).toBeGreaterThanOrEqual(12);
    expect(emitted.length).toBeLessThanOrEqual(18);
    const last = emitted[emitted.length - 1]!;
    expect(last.n).toBe(300);
    expect(last.at - burstEnd).toBeLessThanOrEqual(1000);
    expect(throttle.emitted + throttle.conflated).toBe(300);
  });

  it('never lets more than maxPerSecond readings of a device through in any second', () => {
    const { clock, emitted, send } = setup(5);
    for (let n = 1; n <= 500; n++) {
      send('dev', n);
      clock.advance(7);
    }
    clock.advance(1000);
    for (let i = 5; i < emitted.length; i++) {
      expect(emitted[i]!.at - emitted[i - 5]!.at).toBeGreaterThanOrEqual(1000);
    }
  });

  it('emits readings newest-wins and in order: no older reading after a newer one', () => {
    const { clock, emitted, send } = setup(2);
    for (let n = 1; n <= 50; n++) {
      send('dev', n);
      clock.advance(13);
    }
    clock.advance(1000);
    const ns = emitted.map((e) => e.n);
    expect(ns).toEqual([...ns].sort((a, b) => a - b));
    expect(ns[ns.length - 1]).toBe(50);
  });

  it('emits a device that sends slower than the limit immediately, every time', () => {
    const { clock, emitted, send } = setup(5);
    for (let n = 1; n <= 5; n++) {
      send('slow', n);
      expect(emitted.at(-1)).toEqual({ device: 'slow', n, at: clock.monotonicNow() });
      clock.advance(250);
    }
  });

  it('emits the pending reading one interval after the previous emit, without further input', () => {
    const { clock, emitted, send } = setup(5);
    send('dev', 1);
    clock.advance(50);
    send('dev', 2);
    send('dev', 3);
    clock.advance(149);
    expect(emitted.map((e) => e.n)).toEqual([1]);
    clock.advance(1);
    expect(emitted.map((e) => [e.n, e.at])).toEqual([
      [1, 0],
      [3, 200],
    ]);
  });

  it('does not let a noisy device delay another device', () => {
    const { clock, emitted, send } = setup(5);
    for (let i = 0; i < 100; i++) {
      send('noisy', i);
      clock.advance(1);
    }
    send('quiet', 1);
    expect(emitted.at(-1)).toEqual({ device: 'quiet', n: 1, at: clock.monotonicNow() });
  });

  it('emits a due reading even when the timer fires late', () => {
    const { clock, emitted, throttle } = setup(5);
    throttle.offer('a', { device: 'a', n: 1 });
    throttle.offer('a', { device: 'a', n: 2 });
    clock.block(500); // the event loop was blocked: time moved, no timer ran
    throttle.offer('b', { device: 'b', n: 1 });
    expect(emitted.map((e) => `${e.device}${e.n}`)).toEqual(['a1', 'a2', 'b1']);
  });

  it('forgets idle devices: 100k devices sending once leave no state and no timer behind', () => {
    const { clock, throttle, send } = setup(5);
    for (let i = 0; i < 100_000; i++) send(`dev-${i}`, 1);
    expect(throttle.size).toBe(100_000);
    expect(throttle.emitted).toBe(100_000);
    clock.advance(200);
    expect(throttle.size).toBe(0);
    expect(clock.activeTimers).toBe(0);
  });

  it('keeps one timer for all devices', () => {
    const { clock, send } = setup(5);
    for (let i = 0; i < 1000; i++) {
      send(`dev-${i}`, 1);
      send(`dev-${i}`, 2);
      clock.advance(0.1);
    }
    expect(clock.activeTimers).toBe(1);
  });

  it('flush emits every pending reading at once and clears state', () => {
    const { clock, emitted, throttle, send } = setup(1);
    send('a', 1);
    send('a', 2);
    send('b', 1);
    send('b', 2);
    send('c', 1);
    throttle.flush();
    expect(emitted.map((e) => `${e.device}${e.n}`).sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
    expect(throttle.size).toBe(0);
    expect(clock.activeTimers).toBe(0);
    clock.advance(5000);
    expect(emitted).toHaveLength(5);
  });

  it('judges readings by when they reached the hub: readings held up together (waiting for their seq) get what they would have got on arrival', () => {
    // Arrival times (ms) with a 200 ms interval: some a full interval apart, some within one.
    const arrivals = [0, 250, 500, 550, 600, 620, 900, 1000, 1010];
    const live = setup(5);
    for (const [i, at] of arrivals.entries()) {
      live.clock.advance(at - live.clock.monotonicNow());
      live.throttle.offer('dev', { device: 'dev', n: i + 1 });
    }
    live.clock.advance(1000);
    const held = setup(5);
    // All of them reach the throttle at once, 1.2 s after the first arrived.
    held.clock.advance(1200);
    for (const [i, at] of arrivals.entries()) held.throttle.offer('dev', { device: 'dev', n: i + 1 }, at);
    held.clock.advance(1000);
    expect(held.emitted.map((e) => e.n)).toEqual(live.emitted.map((e) => e.n));
    expect(held.throttle.conflated).toBe(live.throttle.conflated);
    // Within one interval still the newest wins: 5 replaced by 6, 8 by 9.
    expect(held.throttle.conflated).toBeGreaterThan(0);
  });

  it('takes an arrival time in the future as now', () => {
    const { clock, emitted, throttle } = setup(5);
    throttle.offer('dev', { device: 'dev', n: 1 });
    throttle.offer('dev', { device: 'dev', n: 2 }, 10_000);
    throttle.offer('dev', { device: 'dev', n: 3 }, 10_000);
    clock.advance(200);
    expect(emitted.map((e) => e.n)).toEqual([1, 3]);
  });

  it('counts conflated readings', () => {
    const { throttle, send } = setup(5);
    for (let n = 1; n <= 10; n++) send('dev', n);
    expect(throttle.emitted).toBe(1);
    expect(throttle.conflated).toBe(8);
  });

  it('passes everything through with maxPerSecond Infinity', () => {
    const { emitted, throttle, send } = setup(Infinity);
    for (let n = 1; n <= 100; n++) send('dev', n);
    expect(emitted).toHaveLength(100);
    expect(throttle.size).toBe(0);
  });

  it('rejects a non-positive limit', () => {
    expect(() => setup(0)).toThrow(RangeError);
  });

  it('keeps working after emit throws, and reports the error with its value', () => {
    const clock = new ManualClock();
    const seen: number[] = [];
    const errors: [string, number][] = [];
    const throttle = new DeviceThrottle<number>({
      clock,
      emit: (n) => {
        seen.push(n);
        if (n === 2) throw new Error('subscriber broke');
      },
      onEmitError: (err, n) => errors.push([(err as Error).message, n]),
    });
    throttle.offer('a', 1);
    throttle.offer('a', 2);
    expect(() => clock.advance(200)).not.toThrow();
    throttle.offer('a', 3);
    clock.advance(200);
    expect(seen).toEqual([1, 2, 3]);
    expect(errors).toEqual([['subscriber broke', 2]]);
  });
});
