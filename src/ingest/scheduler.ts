/**
 * Timers, injected so time-driven code stays pure and tests run on a fake clock.
 * `{ setTimeout, clearTimeout }` from Node satisfies it.
 */
export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
