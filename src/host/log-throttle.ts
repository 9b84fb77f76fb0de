import { systemClock } from './clock.js';

/** The slice of a pino logger the throttle writes to. */
export interface ThrottledLogTarget {
  warn(obj: object, msg: string): void;
}

/**
 * At most one line per message (or per `key`) per interval: a dependency that fails on every call
 * (a Redis that never answers, thousands of publishes a second) costs a few log lines, not one per
 * failure. The first failure is logged at once; each line counts the ones held back since the
 * line before it (`suppressed`, 0 on the first), so every line of one kind has the same fields.
 */
export class LogThrottle {
  readonly #lastAt = new Map<string, number>();
  readonly #suppressed = new Map<string, number>();

  constructor(
    private readonly target: ThrottledLogTarget,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = systemClock.now,
  ) {}

  /**
   * `key` throttles lines of one message apart (a drop reason, a refusal reason); the message by
   * default. `at`: the time on the throttle's clock, when the caller has read it already.
   */
  warn(obj: object, msg: string, key: string = msg, at: number = this.now()): void {
    const last = this.#lastAt.get(key);
    if (last !== undefined && at - last < this.intervalMs) {
      this.#suppressed.set(key, (this.#suppressed.get(key) ?? 0) + 1);
      return;
    }
    const suppressed = this.#suppressed.get(key) ?? 0;
    this.#suppressed.delete(key);
    this.#lastAt.set(key, at);
    this.target.warn({ ...obj, suppressed }, msg);
  }
}
