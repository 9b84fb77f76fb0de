/**
 * Who may ingest from a source every instance can read (an external MQTT broker): the holder of
 * this lease, one instance per cluster at a time, so each reading gets one `seq` and one throttle.
 */
export interface IngestLease {
  /** True while this instance may ingest. */
  readonly held: boolean;
  /**
   * The fencing token of the current holding while `held` (undefined otherwise): a number the
   * cluster raises at every acquisition, so the shared writes made under an older holding (a
   * holder that stalled past its lease) are refused once a successor took over.
   */
  readonly fence: number | undefined;
  /**
   * Called on every change of `held`; returns a function that stops the calls. A listener may return
   * a promise of its work's end (a source stopping): a lease handed on waits for it before it is
   * freed for another instance.
   */
  onChange(listener: (held: boolean) => void | Promise<void>): () => void;
}

/** A lease one test drives by hand: the in-memory implementation of the seam. */
export class ManualLease implements IngestLease {
  #held: boolean;
  #fence = 0;
  readonly #listeners = new Set<(held: boolean) => void | Promise<void>>();

  constructor(held = false) {
    this.#held = held;
    if (held) this.#fence = 1;
  }

  get held(): boolean {
    return this.#held;
  }

  get fence(): number | undefined {
    return this.#held ? this.#fence : undefined;
  }

  set(held: boolean): void {
    if (held === this.#held) return;
    this.#held = held;
    if (held) this.#fence++;
    for (const listener of [...this.#listeners]) listener(held);
  }

  onChange(listener: (held: boolean) => void | Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
