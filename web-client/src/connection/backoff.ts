/**
 * Delay before retry `attempt` (1-based): exponential from `baseMs`, capped, with ±25 % jitter so a fleet of
 * dashboards does not reconnect in lock-step after a hub restart.
 */
export function backoffMs(attempt: number, baseMs = 1000, maxMs = 30_000, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp * (0.75 + random() * 0.5));
}

/** Consecutive failures after which the pill says "offline" rather than "reconnecting". */
export const OFFLINE_AFTER_FAILURES = 3;
