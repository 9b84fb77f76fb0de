/**
 * Time, injected: the composition root hands every time-driven part (the throttle, rate limiters,
 * token expiry, health check timeouts) one clock, so tests move time by hand instead of waiting.
 */
export interface Clock {
  /** Wall-clock time, epoch ms (`Date.now`): for timestamps and token expiry. */
  now(): number;
  /**
   * Monotonic ms from an arbitrary origin (`performance.now`): for intervals and deadlines,
   * which a wall-clock jump (NTP, a VM resumed) would otherwise stretch or reorder.
   */
  monotonicNow(): number;
  /** Calls `fn` once after `ms` (monotonic); returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** An opaque timer handle; `unref` (when present) stops the timer from keeping the process alive. */
export interface TimerHandle {
  unref?(): unknown;
}

/** The process's clock: `Date.now`, `performance.now` and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicNow: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
