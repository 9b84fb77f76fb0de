import type { DeliveryRecorder } from './delivery-recorder.js';
import type { OutboundMessage } from './message.js';

export interface ConflatingOutboxOptions {
  /**
   * Writes one message to the transport; returns false once the transport's buffer is full
   * (the `stream.write` convention). The transport calls `drain()` when it empties again.
   */
  write(message: OutboundMessage): boolean;
  /** Messages without a conflation key held while the transport is full. Default 1000. */
  maxUnkeyed?: number;
  /** Deliveries, conflations and overflow, for telemetry. Default: none. */
  recorder?: DeliveryRecorder | undefined;
}

/**
 * What `offer` did: `written` through, `queued` while the transport is full, `conflated` into
 * an older pending message of the same key, or `overflow`: the connection is too slow to keep
 * and the transport should close it. Once overflowed, every offer says so.
 */
export type OfferResult = 'written' | 'queued' | 'conflated' | 'overflow';

/**
 * The slow-consumer policy of one connection. While the transport is full, the newest message
 * per conflation key replaces older ones (a device's readings), and messages without a key wait
 * in a bounded FIFO. Memory: one message per followed key plus `maxUnkeyed`.
 */
export class ConflatingOutbox {
  /** Pending messages replaced by a newer one with the same key. */
  conflated = 0;

  readonly #write: (message: OutboundMessage) => boolean;
  readonly #maxUnkeyed: number;
  readonly #recorder: DeliveryRecorder | undefined;
  /**
   * Pending messages in arrival order. A Map keeps a replaced key in its first position;
   * unkeyed messages get numeric keys, which never collide with string conflation keys.
   * Created when the transport first fills and dropped once drained: an idle connection holds none.
   */
  #pending: Map<string | number, OutboundMessage> | undefined = undefined;
  #unkeyed = 0;
  #nextUnkeyedId = 0;
  #full = false;
  #overflowed = false;
  /** Callers of idle() waiting for nothing to be pending. */
  #idleWaiters: (() => void)[] | undefined = undefined;

  constructor(options: ConflatingOutboxOptions) {
    this.#write = options.write;
    this.#maxUnkeyed = options.maxUnkeyed ?? 1000;
    this.#recorder = options.recorder;
  }

  /** Messages waiting for the transport. */
  get pendingCount(): number {
    return this.#pending?.size ?? 0;
  }

  get overflowed(): boolean {
    return this.#overflowed;
  }

  /**
   * Resolves once nothing is held back (at once when nothing is): lets a producer of many messages
   * (a catch-up's replay) wait for the last batch to be taken before it queues the next.
   */
  idle(): Promise<void> {
    if (this.pendingCount === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#idleWaiters ??= []).push(resolve));
  }

  offer(message: OutboundMessage): OfferResult {
    if (this.#overflowed) return 'overflow';
    if (!this.#full) {
      this.#full = !this.#write(message);
      this.#recorder?.written(message);
      return 'written';
    }
    const pending = (this.#pending ??= new Map());
    const key = message.conflationKey;
    if (key !== undefined) {
      const replaced = pending.has(key);
      pending.set(key, message);
      if (replaced) {
        this.conflated++;
        this.#recorder?.conflated();
      }
      return replaced ? 'conflated' : 'queued';
    }
    if (this.#unkeyed >= this.#maxUnkeyed) {
      this.#overflowed = true;
      this.#recorder?.overflowed();
      this.clear();
      return 'overflow';
    }
    this.#unkeyed++;
    pending.set(this.#nextUnkeyedId++, message);
    return 'queued';
  }

  /** The transport can take more: writes pending messages in order until it is full again. */
  drain(): void {
    this.#full = false;
    const pending = this.#pending;
    if (pending === undefined) return;
    for (const [key, message] of pending) {
      pending.delete(key);
      if (typeof key === 'number') this.#unkeyed--;
      const more = this.#write(message);
      this.#recorder?.written(message);
      if (!more) {
        this.#full = true;
        this.#settle();
        return;
      }
    }
    if (this.#pending === pending && pending.size === 0) this.#pending = undefined;
    this.#settle();
  }

  /** The messages held back, in the order they will be written. */
  *pendingMessages(): IterableIterator<OutboundMessage> {
    if (this.#pending !== undefined) yield* this.#pending.values();
  }

  /**
   * Drops the pending messages `drop` picks (a recovered session's readings the history replays
   * instead); the rest keep their order. Returns how many went.
   */
  discard(drop: (message: OutboundMessage) => boolean): number {
    const pending = this.#pending;
    if (pending === undefined) return 0;
    let dropped = 0;
    for (const [key, message] of pending) {
      if (!drop(message)) continue;
      pending.delete(key);
      if (typeof key === 'number') this.#unkeyed--;
      dropped++;
    }
    if (pending.size === 0) this.#pending = undefined;
    this.#settle();
    return dropped;
  }

  /** Drops everything pending, e.g. when the connection closes. */
  clear(): void {
    this.#pending?.clear(); // ends a drain() that is iterating it
    this.#pending = undefined;
    this.#unkeyed = 0;
    this.#settle();
  }

  #settle(): void {
    const waiters = this.#idleWaiters;
    if (waiters === undefined || this.pendingCount !== 0) return;
    this.#idleWaiters = undefined;
    for (const resolve of waiters) resolve();
  }
}
