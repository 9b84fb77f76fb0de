/**
 * The Clock contract every clock runs (the checkpoint-store pattern): what the time-driven parts
 * (throttle, rate limiters, token expiry, health timeouts, retries) rely on. Wall time is epoch ms;
 * monotonic time never goes back and moves as time passes; a timer fires once, never before its
 * delay, timers in due order; a cleared timer never fires. A new clock is one factory.
 */
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/host/clock.js';

export interface ClockUnderTest {
  readonly clock: Clock;
  /** Lets `ms` of time pass on this clock (and the timers due meanwhile run). */
  elapse(ms: number): Promise<void>;
}

/** Node's timers round to whole ms against `performance.now`: a timer may fire this early. */
const TIMER_ROUNDING_MS = 1;

export function runClockContract(name: string, create: () => ClockUnderTest): void {
  describe(`${name} (Clock contract)`, () => {
    it('wall time is epoch ms, and it moves with time passing', async () => {
      const { clock, elapse } = create();
      const before = clock.now();
      expect(Number.isFinite(before)).toBe(true);
      expect(before).toBeGreaterThan(Date.UTC(2020, 0, 1));
      await elapse(30);
      expect(clock.now() - before).toBeGreaterThanOrEqual(30 - TIMER_ROUNDING_MS);
    });

    it('monotonic time never goes back, and moves at least as far as the time that passed', async () => {
      const { clock, elapse } = create();
      const start = clock.monotonicNow();
      let last = start;
      for (let i = 0; i < 1000; i++) {
        const t = clock.monotonicNow();
        expect(t).toBeGreaterThanOrEqual(last);
        last = t;
      }
      await elapse(30);
      expect(clock.monotonicNow() - start).toBeGreaterThanOrEqual(30 - TIMER_ROUNDING_MS);
    });

    it('fires each timer once, not before its delay, the earliest due first', async () => {
      const { clock, elapse } = create();
      const start = clock.monotonicNow();
      const fired: { name: string; after: number }[] = [];
      for (const [name, ms] of [
        ['30', 30],
        ['10', 10],
        ['20', 20],
      ] as const) {
        clock.setTimeout(() => fired.push({ name, after: clock.monotonicNow() - start }), ms);
      }
      await elapse(10);
      await elapse(50);
      expect(fired.map((f) => f.name)).toEqual(['10', '20', '30']);
      for (const f of fired) expect(f.after).toBeGreaterThanOrEqual(Number(f.name) - TIMER_ROUNDING_MS);
      await elapse(40);
      expect(fired).toHaveLength(3);
    });

    it('never fires a cleared timer; the others still fire', async () => {
      const { clock, elapse } = create();
      const fired: string[] = [];
      const cleared = clock.setTimeout(() => fired.push('cleared'), 10);
      clock.setTimeout(() => fired.push('kept'), 20);
      clock.clearTimeout(cleared);
      await elapse(40);
      expect(fired).toEqual(['kept']);
    });

    it('a timer set by a timer counts from when it was set; an unref’d timer still fires', async () => {
      const { clock, elapse } = create();
      const start = clock.monotonicNow();
      let innerAfter: number | undefined;
      clock.setTimeout(() => {
        clock.setTimeout(() => (innerAfter = clock.monotonicNow() - start), 20);
      }, 10);
      clock.setTimeout(() => undefined, 5).unref?.();
      let unrefFired = false;
      clock.setTimeout(() => (unrefFired = true), 5).unref?.();
      await elapse(15);
      expect(innerAfter).toBeUndefined();
      await elapse(40);
      expect(innerAfter).toBeGreaterThanOrEqual(30 - TIMER_ROUNDING_MS);
      expect(unrefFired).toBe(true);
    });

    it('a zero or negative delay fires on the next turn, not at once', async () => {
      const { clock, elapse } = create();
      const fired: number[] = [];
      clock.setTimeout(() => fired.push(0), 0);
      clock.setTimeout(() => fired.push(-1), -5);
      expect(fired).toEqual([]);
      await elapse(5);
      expect(fired.sort()).toEqual([-1, 0]);
    });
  });
}
