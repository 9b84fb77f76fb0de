import type { Logger } from 'pino';
import type { Clock } from '../host/clock.js';
import type { Database } from '../features/storage/database.js';
import { categoryLogger } from '../host/logging.js';
import { DatabaseHistoryReader } from '../features/history/database-history-reader.js';
import type { DeviceSink } from '../features/history/device-restore.js';
import type { HistoryReader } from '../realtime/history-reader.js';
import { HistoryService } from '../features/history/history-service.js';
import { HistoryWriter } from '../features/history/history-writer.js';
import type { AppConfig } from './app-config.js';
import { recordHistory } from '../adapters/otel/history-telemetry.js';
import { Sources } from '../adapters/otel/source-names.js';
import { DEVICE_SINK } from '../features/history/device-restore.js';
import { HISTORY_SERVICE } from '../features/history/history-service.js';
import { DATABASE } from '../features/storage/database.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import { APP_CONFIG, CLOCK, LOGGER, OTEL } from './app-service-keys.js';
import { serviceKey } from '../host/container/service-key.js';
import type { HostedServices } from './hosted-services.js';

export interface History {
  writer: HistoryWriter;
  /** Stored readings plus those accepted and not yet committed (catch-up reads here). */
  reader: HistoryReader;
  /** Every instance of a cluster writes to and reads from this one database (PostgreSQL, not an embedded one each). */
  shared: boolean;
  /** The hosted service, once the registry it restores devices into exists. */
  service(devices: DeviceSink): HistoryService;
}

/** Undefined with `History:Enabled=false`. */
export const HISTORY = serviceKey<History | undefined>('history');

/** History from the configuration; undefined with `History:Enabled=false`. */
export function createHistory(config: AppConfig, log: Logger, clock: Clock, database: Database): History | undefined {
  if (!config.history.enabled) return undefined;
  const historyLog = categoryLogger(log, config, 'History');
  const writer = new HistoryWriter({
    database,
    capacity: config.history.queueCapacity,
    batchSize: config.history.batchSize,
    concurrency: config.history.writerConcurrency ?? (database.engine === 'postgres' ? 4 : 1),
    flushIntervalMs: config.history.flushIntervalMs,
    clock,
    log: historyLog,
  });
  return {
    writer,
    reader: new DatabaseHistoryReader(database, writer),
    shared: database.engine === 'postgres',
    service: (devices) =>
      new HistoryService({
        database,
        writer,
        devices,
        retentionMs: config.history.retentionMs,
        clock,
        log: historyLog,
      }),
  };
}

/**
 * History (undefined when disabled) and, when enabled, its hosted service, which restores the
 * stored devices into the registry (`deviceSink`) at start.
 */
export function registerHistory(registrations: ServiceCollection, hosted: HostedServices, config: AppConfig): void {
  registrations.singleton(
    HISTORY,
    [APP_CONFIG, LOGGER, CLOCK, DATABASE, OTEL],
    (config, log, clock, database, otel) => {
      const history = createHistory(config, log, clock, database);
      const source = otel.source(Sources.history);
      if (history && source) recordHistory(source, history.writer, clock);
      return history;
    },
  );
  if (config.history.enabled)
    hosted.add(HISTORY_SERVICE, [HISTORY, DEVICE_SINK], (history, devices) => history!.service(devices));
}
