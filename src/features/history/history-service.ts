import type { Clock, TimerHandle } from '../../host/clock.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import type { Database } from '../storage/database.js';
import { restoreDevices, type DeviceSink } from './device-restore.js';
import type { HistoryWriter } from './history-writer.js';
import { pruneReadings } from './retention.js';
import { serviceKey } from '../../host/container/service-key.js';

export interface HistoryServiceOptions {
  database: Database;
  writer: HistoryWriter;
  /** Where the persisted devices go at start. */
  devices: DeviceSink;
  /** Readings older than this (by receivedAt) are deleted. */
  retentionMs: number;
  /** How often retention runs (ms). Default one hour. */
  retentionIntervalMs?: number;
  clock: Clock;
  log: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
}

/**
 * History's lifetime. Starts after the database and before ingestion: restores the devices (so
 * `seq` continues) and schedules retention on the injected clock. Stops after ingestion and
 * before the database: writes every accepted reading first, within the shutdown timeout.
 */
export class HistoryService implements HostedService {
  readonly name = 'history';
  readonly #o: HistoryServiceOptions;
  #timer: TimerHandle | undefined;
  #pruning: Promise<void> | undefined;
  readonly #stopping = new AbortController();

  constructor(options: HistoryServiceOptions) {
    this.#o = options;
  }

  async start(): Promise<void> {
    const restored = await restoreDevices(this.#o.database, this.#o.devices);
    this.#o.log.info({ devices: restored }, 'devices restored');
    this.#schedule(0);
  }

  async stop(signal: AbortSignal): Promise<void> {
    this.#stopping.abort();
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    await this.#pruning;
    const before = this.#o.writer.stats().pending;
    await this.#o.writer.drain(signal);
    const { pending, written } = this.#o.writer.stats();
    if (pending > 0) this.#o.log.warn({ pending }, 'history not stored at shutdown timeout');
    else this.#o.log.info({ flushed: before, written }, 'history flushed');
  }

  /** Runs retention once now (tests, operators); resolves with the rows deleted. */
  async prune(): Promise<number> {
    const cutoff = this.#o.clock.now() - this.#o.retentionMs;
    const deleted = await pruneReadings(this.#o.database, cutoff, this.#stopping.signal);
    if (deleted > 0) this.#o.log.info({ deleted, before: new Date(cutoff).toISOString() }, 'old readings deleted');
    return deleted;
  }

  #schedule(ms: number): void {
    if (this.#stopping.signal.aborted) return;
    this.#timer = this.#o.clock.setTimeout(() => {
      this.#timer = undefined;
      this.#pruning = this.prune()
        .then(
          () => undefined,
          (err: unknown) => this.#o.log.warn({ err }, 'retention failed; retrying at the next interval'),
        )
        .finally(() => {
          this.#pruning = undefined;
          this.#schedule(this.#o.retentionIntervalMs ?? 3_600_000);
        });
    }, ms);
    this.#timer.unref?.();
  }
}

export const HISTORY_SERVICE = serviceKey<HistoryService>('historyService');
