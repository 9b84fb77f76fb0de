import { systemClock, type Clock, type TimerHandle } from '../clock.js';
import type { Principal } from './principal.js';

/** setTimeout fires at once for delays above 2^31 - 1 ms (~24.8 days); longer waits are chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `onExpire` once when the principal's credential expires (`expiresAt`), so live connections
 * (socket.io, Web PubSub) can be closed then. Returns `cancel`; call it when the connection closes.
 * A principal without `expiresAt` never fires; an expired one fires on the clock's next timer turn.
 * Timers are unref'd: a pending expiry never keeps the process alive.
 */
export function scheduleExpiry(
  principal: Pick<Principal, 'expiresAt'>,
  onExpire: () => void,
  clock: Clock = systemClock,
): () => void {
  const { expiresAt } = principal;
  if (expiresAt === undefined) return () => undefined;
  let timer: TimerHandle | undefined;
  const wait = (): void => {
    timer = clock.setTimeout(check, Math.min(Math.max(expiresAt - clock.now(), 0), MAX_TIMER_MS));
    timer.unref?.();
  };
  // Re-reads the clock on every wake-up: capped waits and early timer wake-ups never fire too soon.
  const check = (): void => {
    if (expiresAt - clock.now() > 0) return wait();
    timer = undefined;
    onExpire();
  };
  wait();
  return () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
}
