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

  next(): number {
    const ceiling = Math.min(this.maxMs, this.initialMs * 2 ** this.#attempt);
    this.#attempt = Math.min(this.#attempt + 1, 30);
    return Math.round(ceiling / 2 + (this.random() * ceiling) / 2);
  }

  reset(): void {
    this.#attempt = 0;
  }
}
