import type { Clock, TimerHandle } from '../../host/clock.js';
import { LogThrottle } from '../../host/log-throttle.js';
import type { Database } from '../storage/database.js';
import type { Reading } from '../../wire/reading.js';
import { devicesParameter, INSERT_READINGS, readingsParameter, UPSERT_DEVICES } from './reading-rows.js';

export interface HistoryWriterOptions {
  database: Database;
  /** Readings waiting for the database at most; beyond it a reading is not stored (counted, logged). */
  capacity: number;
  /** Readings per multi-row insert. */
  batchSize: number;
  /** Lanes written at once, each one batch at a time in its own transactions; a device always
   *  goes to the same lane. Default 1. */
  concurrency?: number;
  /** Longest a reading waits for its batch to fill (ms). */
  flushIntervalMs: number;
  clock: Clock;
  log: { warn(fields: object, message: string): void };
  /** Wait before retrying a batch the database refused (ms). Default 1000. */
  retryMs?: number;
  /** At most one "queue full" warning per this many ms. Default 10 000. */
  warnIntervalMs?: number;
}

export interface HistoryWriterStats {
  /** Readings taken into the queue. */
  accepted: number;
  /** Readings committed to the database. */
  written: number;
  /** Readings refused because the queue was full (backpressure). */
  dropped: number;
  /** Readings waiting, in the queue or in the batches being written. */
  pending: number;
  /** Batches the database refused (each retried until it succeeds or the hub stops). */
  failedBatches: number;
  /** Readings the database refused as data (e.g. a value out of range): not stored, logged. */
  rejected: number;
}

/** One device's readings always take the same lane, so they commit in order. */
interface Lane {
  readonly queue: Reading[];
  /** The batch being written. */
  inFlight: readonly Reading[] | undefined;
  worker: Promise<void> | undefined;
  /** Flush what is queued now, full batch or not. */
  due: boolean;
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity): the rows, not the connection, are at fault. */
function refusedAsData(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('23'));
}

/**
 * Stores accepted readings: a bounded queue, drained in batches (a batch opens with its first
 * reading and goes when full or after `flushIntervalMs`), one transaction per tenant per batch
 * through `withTenant`, so row-level security checks every row. A refused batch is retried (the
 * insert ignores rows already stored, so a retry after a lost COMMIT reply stores nothing twice).
 * Readings go into `concurrency` lanes by device, each writing one batch at a time: concurrent
 * batches then touch disjoint device and rollup rows (no lock waits between them), and each
 * device's readings still commit in `seq` order, which the readings cursor relies on.
 * `drain` writes everything accepted; shutdown calls it before the database closes.
 */
export class HistoryWriter {
  readonly #o: HistoryWriterOptions;
  readonly #lanes: Lane[];
  /** Readings in the lanes' queues (not in flight): what the capacity bounds. */
  #queued = 0;
  #timer: TimerHandle | undefined;
  #draining = false;
  readonly #knownTenants = new Set<string>();
  #accepted = 0;
  #written = 0;
  #dropped = 0;
  #failedBatches = 0;
  #rejected = 0;
  readonly #fullWarnings: LogThrottle;
  readonly #observers: ((readings: readonly Reading[]) => void)[] = [];
  /** Sources waiting for room (`whenRoom`), woken as batches leave the queue. */
  #roomWaiters: (() => void)[] = [];

  constructor(options: HistoryWriterOptions) {
    this.#o = options;
    this.#fullWarnings = new LogThrottle(options.log, options.warnIntervalMs ?? 10_000, () =>
      options.clock.monotonicNow(),
    );
    this.#lanes = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, () => ({
      queue: [],
      inFlight: undefined,
      worker: undefined,
      due: false,
    }));
  }

  #laneOf(tenantId: string, deviceId: string): Lane {
    if (this.#lanes.length === 1) return this.#lanes[0]!;
    let h = 0;
    for (let i = 0; i < tenantId.length; i++) h = (h * 31 + tenantId.charCodeAt(i)) | 0;
    for (let i = 0; i < deviceId.length; i++) h = (h * 31 + deviceId.charCodeAt(i)) | 0;
    return this.#lanes[(h >>> 0) % this.#lanes.length]!;
  }

  /** Queues an accepted reading; false (counted and logged) when the queue is full. Never throws, never waits. */
  offer(reading: Reading): boolean {
    if (this.#queued >= this.#o.capacity) {
      this.#dropped++;
      this.#warnFull();
      return false;
    }
    const lane = this.#laneOf(reading.tenantId, reading.deviceId);
    lane.queue.push(reading);
    this.#queued++;
    this.#accepted++;
    if (lane.queue.length >= this.#o.batchSize) this.#kick(lane);
    else if (this.#timer === undefined && lane.worker === undefined) this.#arm();
    return true;
  }

  /**
   * Undefined while the queue has room for `reserved + 1` more readings; else a promise that
   * resolves once a batch has left the queue (then ask again). Sources that acknowledge readings to
   * their broker wait on it before taking the next one, so the broker keeps what the writer cannot
   * hold yet and nothing acknowledged is ever refused here. `reserved`: readings on their way here
   * that already counted on room (waiting for their `seq`).
   */
  whenRoom(reserved = 0): Promise<void> | undefined {
    if (this.#queued + reserved < this.#o.capacity) return undefined;
    return new Promise((resolve) => this.#roomWaiters.push(resolve));
  }

  /** Accepted readings of one device not yet committed, with `seq > afterSeq`, ascending. */
  pendingAfter(tenantId: string, deviceId: string, afterSeq: number): Reading[] {
    const out: Reading[] = [];
    const lane = this.#laneOf(tenantId, deviceId);
    for (const list of [lane.inFlight ?? [], lane.queue]) {
      for (const r of list) if (r.seq > afterSeq && r.deviceId === deviceId && r.tenantId === tenantId) out.push(r);
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** Calls `fn` after each batch committed, with its readings (metrics; the bench measures writer lag). */
  observe(fn: (readings: readonly Reading[]) => void): void {
    this.#observers.push(fn);
  }

  stats(): HistoryWriterStats {
    return {
      accepted: this.#accepted,
      written: this.#written,
      dropped: this.#dropped,
      pending: this.#queued + this.#lanes.reduce((n, lane) => n + (lane.inFlight?.length ?? 0), 0),
      failedBatches: this.#failedBatches,
      rejected: this.#rejected,
    };
  }

  /** Writes everything accepted so far; resolves when it is committed or `signal` aborts. */
  async drain(signal?: AbortSignal): Promise<void> {
    this.#draining = true;
    try {
      while (this.#lanes.some((lane) => lane.queue.length > 0 || lane.worker !== undefined) && !signal?.aborted) {
        for (const lane of this.#lanes) {
          lane.due = true;
          this.#kick(lane);
        }
        const workers = this.#lanes.flatMap((lane) => (lane.worker === undefined ? [] : [lane.worker]));
        if (workers.length === 0) break;
        const running = Promise.race(workers);
        await new Promise<void>((resolve) => {
          signal?.addEventListener('abort', () => resolve(), { once: true });
          running.then(resolve, resolve);
        });
      }
    } finally {
      this.#draining = false;
    }
  }

  #arm(): void {
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      for (const lane of this.#lanes) {
        if (lane.queue.length === 0) continue;
        lane.due = true;
        this.#kick(lane);
      }
    }, this.#o.flushIntervalMs);
    this.#timer.unref?.();
  }

  #hasWork(lane: Lane): boolean {
    return lane.queue.length >= this.#o.batchSize || (lane.due && lane.queue.length > 0);
  }

  #kick(lane: Lane): void {
    if (lane.worker !== undefined || !this.#hasWork(lane)) return;
    lane.worker = this.#run(lane).finally(() => {
      lane.worker = undefined;
      lane.due = false;
      if (lane.queue.length === 0) return;
      if (lane.queue.length >= this.#o.batchSize) this.#kick(lane);
      else if (this.#timer === undefined) this.#arm();
    });
  }

  async #run(lane: Lane): Promise<void> {
    while (this.#hasWork(lane)) {
      const batch = lane.queue.splice(0, this.#o.batchSize);
      this.#queued -= batch.length;
      this.#wakeRoomWaiters();
      lane.inFlight = batch;
      try {
        await this.#write(batch);
        this.#written += batch.length;
        this.#notify(batch);
      } catch (first) {
        this.#failedBatches++;
        let err = first;
        if (refusedAsData(err)) {
          // Retrying the same rows would fail for ever and hold every reading behind them: store
          // them one by one instead and leave out only the ones the database refuses.
          try {
            await this.#writeEach(batch, err);
            continue;
          } catch (again) {
            err = again;
          }
        }
        // Back at the front, in order; the queue may briefly exceed its capacity by this batch.
        lane.queue.unshift(...batch);
        this.#queued += batch.length;
        lane.inFlight = undefined;
        this.#o.log.warn({ err, readings: batch.length, pending: this.#queued }, 'history batch not stored; retrying');
        await this.#pause(this.#o.retryMs ?? 1000);
      } finally {
        lane.inFlight = undefined;
      }
    }
  }

  #wakeRoomWaiters(): void {
    if (this.#roomWaiters.length === 0) return;
    const waiters = this.#roomWaiters;
    this.#roomWaiters = [];
    for (const wake of waiters) wake();
  }

  #notify(batch: readonly Reading[]): void {
    for (const observe of this.#observers) {
      try {
        observe(batch);
      } catch (err) {
        this.#o.log.warn({ err }, 'history observer failed');
      }
    }
  }

  async #writeEach(batch: readonly Reading[], cause: unknown): Promise<void> {
    let rejected = 0;
    for (const reading of batch) {
      try {
        await this.#write([reading]);
      } catch (err) {
        if (!refusedAsData(err)) throw err;
        rejected++;
      }
    }
    this.#rejected += rejected;
    this.#written += batch.length - rejected;
    this.#o.log.warn(
      { err: cause, rejected, stored: batch.length - rejected },
      'history readings refused by the database; stored the rest',
    );
    this.#notify(batch);
  }

  async #write(batch: readonly Reading[]): Promise<void> {
    const byTenant = new Map<string, Reading[]>();
    for (const r of batch) {
      const list = byTenant.get(r.tenantId);
      if (list === undefined) byTenant.set(r.tenantId, [r]);
      else list.push(r);
    }
    for (const [tenantId, readings] of byTenant) {
      await this.#o.database.withTenant(tenantId, async (sql) => {
        await sql.query(INSERT_READINGS, [readingsParameter(readings)]);
        await sql.query(UPSERT_DEVICES, [devicesParameter(readings)]);
        if (!this.#knownTenants.has(tenantId)) {
          await sql.query(
            `insert into tenants (tenant_id) values (current_setting('app.tenant_id')) on conflict do nothing`,
          );
        }
      });
      this.#knownTenants.add(tenantId);
    }
  }

  /** A retry's wait; cut short when a drain asks for everything now. */
  #pause(ms: number): Promise<void> {
    if (this.#draining) ms = Math.min(ms, 200);
    return new Promise((resolve) => {
      const timer = this.#o.clock.setTimeout(resolve, ms);
      timer.unref?.();
    });
  }

  #warnFull(): void {
    this.#fullWarnings.warn(
      { capacity: this.#o.capacity, dropped: this.#dropped },
      'history queue full; readings not stored',
    );
  }
}
