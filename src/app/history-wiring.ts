import type { Logger } from 'pino';
import type { Clock } from '../host/clock.js';
import type { Database } from '../db/database.js';
import { categoryLogger } from '../host/logging.js';
import { DatabaseHistoryReader } from '../history/database-history-reader.js';
import type { DeviceSink } from '../history/device-restore.js';
import type { HistoryReader } from '../history/history-reader.js';
import { HistoryService } from '../history/history-service.js';
import { HistoryWriter } from '../history/history-writer.js';
import type { AppConfig } from './app-config.js';

export interface History {
  writer: HistoryWriter;
  /** Stored readings plus those accepted and not yet committed (catch-up reads here). */
  reader: HistoryReader;
  /** The hosted service, once the registry it restores devices into exists. */
  service(devices: DeviceSink): HistoryService;
}

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
    service: (devices) => new HistoryService({ database, writer, devices, retentionMs: config.history.retentionMs, clock, log: historyLog }),
  };
}
