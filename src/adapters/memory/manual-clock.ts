import type { Clock, TimerHandle } from '../../host/clock.js';

interface Timer extends TimerHandle {
  readonly id: number;
  at: number;
  readonly fn: () => void;
}

/**
 * The test clock: time moves only through `advance`, which fires due timers in due order at their
 * own due time. Wall time starts at `wallStart` and moves with monotonic time unless a test sets it
 * apart (`setWallTime`) to play a wall clock that lags or jumps.
 */
export class ManualClock implements Clock {
  #monotonic = 0;
  #wallOffset: number;
  #nextId = 1;
  readonly #timers = new Map<number, Timer>();

  constructor(wallStart = 1_760_000_000_000) {
    this.#wallOffset = wallStart;
  }

  now(): number {
    return this.#monotonic + this.#wallOffset;
  }

  monotonicNow(): number {
    return this.#monotonic;
  }

  /** Sets the wall clock alone; monotonic time and timers stay where they are. */
  setWallTime(epochMs: number): void {
    this.#wallOffset = epochMs - this.#monotonic;
  }

  /** Timers set and not yet fired or cleared. */
  get activeTimers(): number {
    return this.#timers.size;
  }

  /** The longest delay any timer was set with (Node caps what it accepts at 2^31 - 1). */
  longestDelay = 0;

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const delay = Math.max(0, ms);
    this.longestDelay = Math.max(this.longestDelay, delay);
    const timer: Timer = { id: this.#nextId++, at: this.#monotonic + delay, fn, unref: () => timer };
    this.#timers.set(timer.id, timer);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete((handle as Timer).id);
  }

  /** Moves time forward by `ms`, firing each due timer at its own due time, earliest (then oldest) first. */
  advance(ms: number): void {
    const end = this.#monotonic + ms;
    for (;;) {
      let next: Timer | undefined;
      for (const timer of this.#timers.values()) if (next === undefined || timer.at < next.at) next = timer;
      if (next === undefined || next.at > end) break;
      this.#timers.delete(next.id);
      this.#monotonic = Math.max(this.#monotonic, next.at);
      next.fn();
    }
    this.#monotonic = end;
  }

  /** Moves time without firing timers: the event loop was blocked, and the timers run late. */
  block(ms: number): void {
    this.#monotonic += ms;
  }

  /** `advance`, then lets promise callbacks the timers started run (e.g. a health check's race). */
  async advanceAndSettle(ms: number): Promise<void> {
    this.advance(ms);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
