import type { Clock, TimerHandle } from '../host/clock.js';
import type { Database } from '../db/database.js';
import type { Reading } from '../protocol/reading.js';
import { devicesParameter, INSERT_READINGS, readingsParameter, UPSERT_DEVICES } from './reading-rows.js';

export interface HistoryWriterOptions {
  database: Database;
  /** Readings waiting for the database at most; beyond it a reading is not stored (counted, logged). */
  capacity: number;
  /** Readings per multi-row insert. */
  batchSize: number;
  /** Batches written at once, each its own transactions (a pool serves them in parallel). Default 1. */
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
 * Up to `concurrency` batches are written at once; their order does not matter, because every
 * statement is idempotent per row and the device row only moves forward.
 * `drain` writes everything accepted; shutdown calls it before the database closes.
 */
export class HistoryWriter {
  readonly #o: HistoryWriterOptions;
  readonly #queue: Reading[] = [];
  readonly #inFlight = new Set<readonly Reading[]>();
  readonly #workers = new Set<Promise<void>>();
  #timer: TimerHandle | undefined;
  /** Flush what is queued now, full batch or not. */
  #due = false;
  #draining = false;
  readonly #knownTenants = new Set<string>();
  #accepted = 0;
  #written = 0;
  #dropped = 0;
  #failedBatches = 0;
  #rejected = 0;
  #lastWarn = -Infinity;
  #suppressed = 0;
  readonly #observers: ((readings: readonly Reading[]) => void)[] = [];

  constructor(options: HistoryWriterOptions) {
    this.#o = options;
  }

  /** Queues an accepted reading; false (counted and logged) when the queue is full. Never throws, never waits. */
  offer(reading: Reading): boolean {
    if (this.#queue.length >= this.#o.capacity) {
      this.#dropped++;
      this.#warnFull();
      return false;
    }
    this.#queue.push(reading);
    this.#accepted++;
    if (this.#queue.length >= this.#o.batchSize) this.#kick();
    else if (this.#timer === undefined && this.#workers.size === 0) this.#arm();
    return true;
  }

  /** Accepted readings of one device not yet committed, with `seq > afterSeq`, ascending. */
  pendingAfter(tenantId: string, deviceId: string, afterSeq: number): Reading[] {
    const out: Reading[] = [];
    for (const list of [...this.#inFlight, this.#queue]) {
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
      pending: this.#queue.length + this.#inFlightCount(),
      failedBatches: this.#failedBatches,
      rejected: this.#rejected,
    };
  }

  /** Writes everything accepted so far; resolves when it is committed or `signal` aborts. */
  async drain(signal?: AbortSignal): Promise<void> {
    this.#draining = true;
    try {
      while ((this.#queue.length > 0 || this.#workers.size > 0) && !signal?.aborted) {
        this.#due = true;
        this.#kick();
        if (this.#workers.size === 0) break;
        const running = Promise.race(this.#workers);
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
      this.#due = true;
      this.#kick();
    }, this.#o.flushIntervalMs);
    this.#timer.unref?.();
  }

  #inFlightCount(): number {
    let n = 0;
    for (const batch of this.#inFlight) n += batch.length;
    return n;
  }

  #hasWork(): boolean {
    return this.#queue.length >= this.#o.batchSize || (this.#due && this.#queue.length > 0);
  }

  #kick(): void {
    if (this.#timer !== undefined) {
      this.#o.clock.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    while (this.#workers.size < Math.max(1, this.#o.concurrency ?? 1) && this.#hasWork()) {
      const worker: Promise<void> = this.#run().finally(() => {
        this.#workers.delete(worker);
        if (this.#workers.size > 0) return;
        if (this.#queue.length === 0) this.#due = false;
        else if (this.#hasWork()) this.#kick();
        else this.#arm();
      });
      this.#workers.add(worker);
    }
  }

  async #run(): Promise<void> {
    while (this.#hasWork()) {
      const batch = this.#queue.splice(0, this.#o.batchSize);
      this.#inFlight.add(batch);
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
        // Back at the front; the queue may briefly exceed its capacity by the batches in flight.
        this.#inFlight.delete(batch);
        this.#queue.unshift(...batch);
        this.#o.log.warn({ err, readings: batch.length, pending: this.#queue.length }, 'history batch not stored; retrying');
        await this.#pause(this.#o.retryMs ?? 1000);
        continue;
      } finally {
        this.#inFlight.delete(batch);
      }
    }
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
    this.#o.log.warn({ err: cause, rejected, stored: batch.length - rejected }, 'history readings refused by the database; stored the rest');
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
          await sql.query(`insert into tenants (tenant_id) values (current_setting('app.tenant_id')) on conflict do nothing`);
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
    const now = this.#o.clock.monotonicNow();
    if (now - this.#lastWarn < (this.#o.warnIntervalMs ?? 10_000)) {
      this.#suppressed++;
      return;
    }
    this.#o.log.warn({ capacity: this.#o.capacity, dropped: this.#dropped, suppressed: this.#suppressed }, 'history queue full; readings not stored');
    this.#lastWarn = now;
    this.#suppressed = 0;
  }
}
