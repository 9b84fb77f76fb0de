/**
 * Who may ingest from a source every instance can read (an external MQTT broker): the holder of
 * this lease, one instance per cluster at a time, so each reading gets one `seq` and one throttle.
 */
export interface IngestLease {
  /** True while this instance may ingest. */
  readonly held: boolean;
  /** Called on every change of `held`; returns a function that stops the calls. */
  onChange(listener: (held: boolean) => void): () => void;
}

/** A single instance (no Redis): always its own ingester. */
export const soleLease: IngestLease = {
  held: true,
  onChange: () => () => undefined,
};

/** A lease one test drives by hand: the in-memory implementation of the seam. */
export class ManualLease implements IngestLease {
  #held: boolean;
  readonly #listeners = new Set<(held: boolean) => void>();

  constructor(held = false) {
    this.#held = held;
  }

  get held(): boolean {
    return this.#held;
  }

  set(held: boolean): void {
    if (held === this.#held) return;
    this.#held = held;
    for (const listener of [...this.#listeners]) listener(held);
  }

  onChange(listener: (held: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
