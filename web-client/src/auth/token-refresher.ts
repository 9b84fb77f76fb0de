import { jwtExpiryMs } from './session';

/** The timers the refresher runs on; tests pass a fake clock. */
export interface RefreshTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface TokenRefresherOptions {
  /** A fresh token from the same source the connection signed in with. */
  fetchToken: () => Promise<string>;
  /** Hands the token to the live session (socket.io `refresh`); resolves to the session's new expiry, epoch ms. */
  apply: (token: string) => Promise<number>;
  timers?: RefreshTimers;
  /** Refresh this long before expiry. Default 60 s. */
  marginMs?: number;
  /** Wait after a failed attempt. Default 10 s. */
  retryMs?: number;
}

const browserTimers: RefreshTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => window.setTimeout(fn, ms),
  clearTimeout: (handle) => window.clearTimeout(handle as number),
};

/** Never busy-loops, even on a token that expires almost at once. */
const MIN_DELAY_MS = 1000;

/**
 * Keeps a live session authorised without reconnecting: shortly before it expires, gets a fresh token
 * and applies it, then waits for the next expiry. When no later token comes (a pasted token cannot be
 * renewed) or every attempt fails until expiry, it stops: the hub closes the session then and the
 * connection's reconnect path takes over.
 */
export class TokenRefresher {
  private readonly timers: RefreshTimers;
  private timer: unknown;
  /** Bumped by start/stop: an attempt still in flight from before changes nothing. */
  private generation = 0;

  constructor(private readonly opts: TokenRefresherOptions) {
    this.timers = opts.timers ?? browserTimers;
  }

  /** Schedules the refresh of a session that ends at `expiresAt` (epoch ms); replaces any earlier schedule. */
  start(expiresAt: number): void {
    this.stop();
    const generation = this.generation;
    const remaining = expiresAt - this.timers.now();
    if (remaining <= 0) return;
    const margin = this.opts.marginMs ?? 60_000;
    // A short-lived token is refreshed half-way instead of at once.
    const delay = Math.max(remaining > 2 * margin ? remaining - margin : remaining / 2, MIN_DELAY_MS);
    this.wait(delay, () => void this.attempt(expiresAt, generation));
  }

  stop(): void {
    this.generation++;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private wait(ms: number, fn: () => void): void {
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      fn();
    }, ms);
  }

  private async attempt(expiresAt: number, generation: number): Promise<void> {
    let next: number;
    try {
      const token = await this.opts.fetchToken();
      if (generation !== this.generation) return;
      const tokenExpiry = jwtExpiryMs(token);
      // Nothing newer to offer: leave the session to end and the reconnect path to sign in again.
      if (tokenExpiry === null || tokenExpiry <= expiresAt) return;
      next = await this.opts.apply(token);
    } catch {
      if (generation !== this.generation) return;
      const retryMs = this.opts.retryMs ?? 10_000;
      if (expiresAt - this.timers.now() > retryMs) this.wait(retryMs, () => void this.attempt(expiresAt, generation));
      return;
    }
    if (generation === this.generation) this.start(next);
  }
}
