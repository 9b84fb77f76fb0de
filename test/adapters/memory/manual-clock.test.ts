import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { runClockContract } from '../../host/clock.case.js';

runClockContract('ManualClock', () => {
  const clock = new ManualClock();
  return { clock, elapse: (ms) => clock.advanceAndSettle(ms) };
});

describe('ManualClock', () => {
  it('time moves only when a test moves it, and a blocked loop runs its timers late, in order', () => {
    const clock = new ManualClock(1_760_000_000_000);
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.monotonicNow()), 10);
    expect([clock.now(), clock.monotonicNow()]).toEqual([1_760_000_000_000, 0]);
    clock.block(50);
    expect(fired).toEqual([]);
    clock.advance(0);
    expect(fired).toEqual([50]);
  });

  it('a wall clock set apart (a jump, NTP) leaves monotonic time and timers where they were', () => {
    const clock = new ManualClock(1_760_000_000_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('t'), 100);
    clock.setWallTime(1_700_000_000_000);
    expect([clock.now(), clock.monotonicNow()]).toEqual([1_700_000_000_000, 0]);
    clock.advance(99);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual(['t']);
    expect(clock.now()).toBe(1_700_000_000_100);
  });
});
