/**
 * Exponential reconnect delays with jitter, so a fleet of hubs does not reconnect to a restarted
 * broker in lock step. Delay n is uniform in [base·2ⁿ/2, base·2ⁿ], capped at max.
 */
export class Backoff {
  #attempt = 0;

  constructor(
    readonly initialMs = 500,
    readonly maxMs = 30_000,
    readonly random: () => number = Math.random,
  ) {}

  /** The next delay of this backoff's own count of attempts. */
  next(): number {
    const delay = this.delay(this.#attempt);
    this.#attempt = Math.min(this.#attempt + 1, 30);
    return delay;
  }

  /** Delay `attempt` (0 for the first), for a client that counts its attempts itself (ioredis). */
  delay(attempt: number): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(Math.max(attempt, 0), 30));
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.#attempt = 0;
  }
}
