import type { Scheduler } from '../../src/ingest/scheduler.js';

/** A deterministic clock and timer queue: time moves only through `advance`. */
export class FakeScheduler implements Scheduler {
  time = 0;
  #nextId = 1;
  readonly #timers = new Map<number, { at: number; fn: () => void }>();

  now = (): number => this.time;

  get activeTimers(): number {
    return this.#timers.size;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Moves time forward by `ms`, firing each due timer at its own due time, earliest first. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let nextId: number | undefined;
      let nextAt = Infinity;
      for (const [id, t] of this.#timers) {
        if (t.at < nextAt) {
          nextAt = t.at;
          nextId = id;
        }
      }
      if (nextId === undefined || nextAt > end) break;
      const timer = this.#timers.get(nextId)!;
      this.#timers.delete(nextId);
      this.time = Math.max(this.time, nextAt);
      timer.fn();
    }
    this.time = end;
  }
}
