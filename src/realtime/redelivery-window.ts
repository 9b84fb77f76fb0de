import type { Clock } from '../host/clock.js';

/**
 * Recognises a reading delivered again: the broker resends a QoS 1 message after a reconnect or
 * after its ingester crashed before acknowledging it, or a device republishes one. A reading seen
 * within the window keeps the `seq` it got the first time: the copy is dropped (`redelivered`).
 * In memory for a single hub (`LocalRedeliveryWindow`); in Redis for a cluster, so the successor
 * of a crashed ingester recognises what its predecessor accepted.
 */
export interface RedeliveryWindow {
  /**
   * True when `identity` (`readingIdentity`) was seen within the window; otherwise remembers it
   * and answers false. A promise when it must ask elsewhere (`redelivered`: the transport says the
   * message may have been delivered before, e.g. MQTT's DUP flag). `fence`: the ingest lease
   * holding the reading came under; a stale holding's identities are not remembered for the cluster.
   */
  seen(identity: string, redelivered: boolean, fence: number | undefined): boolean | Promise<boolean>;
  /**
   * For a reading of an ingest lease holding (`fence`) whose `seq` is settled: remembers `identity`
   * and `seq` for the cluster under that holding, before the reading is handed on or acknowledged.
   * Resolves true when the cluster knew it already and its reading reached the cluster
   * (`redelivered`): an earlier holding's reading counts only once that holding published its
   * device group (`group`) at its seq or later. False once remembered; rejects with `SeqRefused`
   * when the holding is over (`fenced`: a successor numbers it). Undefined: this window keeps
   * nothing beyond this process (`seen` decided).
   */
  confirm?(identity: string, fence: number, seq: number, group: string): Promise<boolean> | undefined;
  /** Takes back what `seen` remembered of a reading that was dropped after all (`fenced`). */
  forget(identity: string): void;
}

/**
 * Identities seen lately, in two generations: the current one takes new identities, and the
 * previous one is still asked. A generation ends after `windowMs` or at `maxEntries`, so an
 * identity is remembered for at least `windowMs` (at most twice that) unless more than
 * `maxEntries` arrive within it. No per-entry timer, no scan.
 */
export class RecentIdentities {
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #clock: Clock;
  #current = new Set<string>();
  #previous = new Set<string>();
  #since: number;

  constructor(options: { windowMs: number; maxEntries?: number; clock: Clock }) {
    this.#windowMs = options.windowMs;
    this.#maxEntries = options.maxEntries ?? 100_000;
    this.#clock = options.clock;
    this.#since = options.clock.monotonicNow();
  }

  /** True when seen within the window; remembers it otherwise. */
  seen(identity: string): boolean {
    if (this.#current.has(identity) || this.#previous.has(identity)) return true;
    if (this.#current.size >= this.#maxEntries || this.#clock.monotonicNow() - this.#since >= this.#windowMs) {
      this.#previous = this.#current;
      this.#current = new Set();
      this.#since = this.#clock.monotonicNow();
    }
    this.#current.add(identity);
    return false;
  }

  forget(identity: string): void {
    this.#current.delete(identity);
    this.#previous.delete(identity);
  }
}

/** The single hub's window: in memory only. */
export class LocalRedeliveryWindow implements RedeliveryWindow {
  readonly #recent: RecentIdentities;

  constructor(options: { windowMs: number; maxEntries?: number; clock: Clock }) {
    this.#recent = new RecentIdentities(options);
  }

  seen(identity: string): boolean {
    return this.#recent.seen(identity);
  }

  forget(identity: string): void {
    this.#recent.forget(identity);
  }
}
