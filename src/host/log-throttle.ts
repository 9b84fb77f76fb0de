/** The slice of a pino logger the throttle writes to. */
export interface ThrottledLogTarget {
  warn(obj: object, msg: string): void;
}

/**
 * At most one line per message per interval: a dependency that fails on every call (a Redis that
 * never answers, thousands of publishes a second) costs a few log lines, not one per failure. The
 * first failure is logged at once; the ones held back meanwhile are counted in the next line
 * (`suppressed`).
 */
export class LogThrottle {
  readonly #lastAt = new Map<string, number>();
  readonly #suppressed = new Map<string, number>();

  constructor(
    private readonly target: ThrottledLogTarget,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  warn(obj: object, msg: string): void {
    const at = this.now();
    const last = this.#lastAt.get(msg);
    if (last !== undefined && at - last < this.intervalMs) {
      this.#suppressed.set(msg, (this.#suppressed.get(msg) ?? 0) + 1);
      return;
    }
    const suppressed = this.#suppressed.get(msg) ?? 0;
    this.#suppressed.delete(msg);
    this.#lastAt.set(msg, at);
    this.target.warn(suppressed > 0 ? { ...obj, suppressed } : obj, msg);
  }
}
