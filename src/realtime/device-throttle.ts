import type { Clock, TimerHandle } from '../host/clock.js';

export interface DeviceThrottleOptions<T> {
  /** Readings per device per second that reach `emit`; Infinity turns throttling off. Default 5. */
  maxPerSecond?: number;
  /** Due times use its monotonic time: wall-clock jumps would reorder them. */
  clock: Clock;
  /** The next stage (the hub's publishReading): the throttle hands readings straight on. */
  emit(value: T): void;
  /** An `emit` that threw; the throttle carries on with the other devices. Default: ignored. */
  onEmitError?(err: unknown, value: T): void;
}

interface DeviceState<T, K> {
  readonly key: K;
  /** When this device may emit again; also when its idle state is evicted. */
  dueAt: number;
  pending: T | undefined;
  /**
   * When the device's current interval ends by the readings' arrival (monotonic ms): a reading
   * that arrived later starts a new one, whenever it reaches the throttle.
   */
  windowEnd: number;
}

/**
 * Per-device rate limit with latest-value conflation. A device's first reading after a quiet
 * interval (1000 / maxPerSecond ms) is emitted at once; readings arriving faster replace each
 * other and the newest is emitted when the interval ends, so it is never stuck. Devices are
 * independent: one noisy device only ever holds its own single pending slot.
 *
 * State exists only for devices that emitted within the last interval, so memory follows the
 * active device count. Every state is due exactly `interval` after its last emit, and with a
 * monotonic clock states become due in the order they were queued: a FIFO queue and one timer
 * for its head replace both a heap and a timer per device. O(1) per reading.
 */
export class DeviceThrottle<T, K = string> {
  /** Readings handed to `emit`. */
  emitted = 0;
  /** Readings replaced by a newer one of the same device before they were emitted. */
  conflated = 0;

  readonly #interval: number;
  readonly #clock: Clock;
  readonly #emit: (value: T) => void;
  readonly #onEmitError: (err: unknown, value: T) => void;
  readonly #states = new Map<K, DeviceState<T, K>>();
  #queue: DeviceState<T, K>[] = [];
  #head = 0;
  #timer: TimerHandle | undefined = undefined;
  #timerDueAt = Infinity;

  constructor(options: DeviceThrottleOptions<T>) {
    const maxPerSecond = options.maxPerSecond ?? 5;
    if (!(maxPerSecond > 0)) throw new RangeError(`maxPerSecond must be > 0, got ${maxPerSecond}`);
    this.#interval = 1000 / maxPerSecond;
    this.#clock = options.clock;
    this.#emit = options.emit;
    this.#onEmitError = options.onEmitError ?? (() => undefined);
  }

  /** Devices with live state (emitted within the last interval or pending). */
  get size(): number {
    return this.#states.size;
  }

  /**
   * Takes a device's newest reading; emits it now or within one interval. `key` names the device:
   * any value with identity (the registry's entry for the device serves without building a string).
   * `arrivedAt` (monotonic ms, default now): when the reading reached the hub. Readings that waited
   * together (for their `seq`, after a failover) reach the throttle at once; one replaces the
   * pending reading only when the two arrived within one interval, so readings that came an
   * interval apart or more are all emitted, in order, however they were held up after arriving.
   */
  offer(key: K, value: T, arrivedAt?: number): void {
    if (this.#interval === 0) {
      this.#send(value);
      return;
    }
    const now = this.#clock.monotonicNow();
    // A late timer must not hold back a device whose interval already ended.
    if (this.#head < this.#queue.length && this.#queue[this.#head]!.dueAt <= now) this.#runDue(now);

    const at = arrivedAt === undefined || arrivedAt > now ? now : arrivedAt;
    const state = this.#states.get(key);
    if (state === undefined) {
      const fresh: DeviceState<T, K> = {
        key,
        dueAt: now + this.#interval,
        pending: undefined,
        windowEnd: at + this.#interval,
      };
      this.#states.set(key, fresh);
      this.#enqueue(fresh);
      this.#send(value);
      return;
    }
    if (at >= state.windowEnd) {
      // Arrived after the device's interval ended, though it reaches the throttle only now (it
      // waited with others for its seq): that interval's newest goes as its timer would have sent
      // it, and this one is judged against the interval after.
      const held = state.pending;
      if (held !== undefined) {
        state.pending = undefined;
        state.windowEnd += this.#interval;
        this.#send(held);
      }
      if (at >= state.windowEnd) {
        state.windowEnd = at + this.#interval;
        this.#send(value);
        return;
      }
    }
    if (state.pending !== undefined) this.conflated++;
    state.pending = value;
  }

  /**
   * Emits every pending reading now, ignoring the rate, and forgets all state. For shutdown:
   * the hub delivers what it accepted.
   */
  flush(): void {
    this.#cancelTimer();
    const pending: T[] = [];
    for (const state of this.#states.values()) if (state.pending !== undefined) pending.push(state.pending);
    this.#states.clear();
    this.#queue = [];
    this.#head = 0;
    for (const value of pending) this.#send(value);
  }

  #runDue(now: number): void {
    while (this.#head < this.#queue.length) {
      const state = this.#queue[this.#head]!;
      if (state.dueAt > now) break;
      this.#queue[this.#head++] = undefined as never;
      const value = state.pending;
      if (value === undefined) {
        this.#states.delete(state.key);
        continue;
      }
      state.pending = undefined;
      state.dueAt = now + this.#interval;
      state.windowEnd += this.#interval;
      this.#queue.push(state);
      this.#send(value);
    }
    this.#compact();
  }

  #send(value: T): void {
    this.emitted++;
    try {
      this.#emit(value);
    } catch (err) {
      // From a timer, a throw would end the process; from offer(), it would reach the source.
      this.#onEmitError(err, value);
    }
  }

  #enqueue(state: DeviceState<T, K>): void {
    this.#queue.push(state);
    if (state.dueAt < this.#timerDueAt) this.#arm(state.dueAt);
  }

  #onTimer = (): void => {
    this.#timer = undefined;
    this.#timerDueAt = Infinity;
    try {
      this.#runDue(this.#clock.monotonicNow());
    } finally {
      const next = this.#queue[this.#head];
      if (next !== undefined) this.#arm(next.dueAt);
    }
  };

  #arm(dueAt: number): void {
    this.#cancelTimer();
    this.#timerDueAt = dueAt;
    this.#timer = this.#clock.setTimeout(this.#onTimer, Math.max(0, dueAt - this.#clock.monotonicNow()));
  }

  #cancelTimer(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDueAt = Infinity;
  }

  /** Drops the consumed prefix once it dominates, keeping the queue's memory proportional to live states. */
  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
  }
}
