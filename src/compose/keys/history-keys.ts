import type { KeyDefinition } from '../../host/config/key-definition.js';
import type { ResolvedConfig } from '../../host/config/load-config.js';
import * as p from '../../host/config/parsers.js';

/** History's configuration keys: what is kept, for how long, and the writer's bounds. */
export const HISTORY_KEYS: readonly KeyDefinition[] = [
  // Store every accepted reading and the device registry in the database.
  {
    key: 'History:Enabled',
    doc: 'store every accepted reading and the device registry (see History (docs/http-api.md))',
    parse: p.bool,
    default: () => true,
  },
  // Readings older than this (by receivedAt) are deleted, in batches, hourly.
  {
    key: 'History:RetentionDays',
    doc: 'readings received longer ago are deleted (hourly, in batches)',
    parse: p.num(0.001, 36_500, { exclusiveMin: false }),
    default: () => 7,
  },
  // Readings waiting for the database; past it acknowledged sources wait, the others' readings are not stored.
  {
    key: 'History:QueueCapacity',
    doc: 'readings waiting for the database; when it is full, acknowledged ingestion (MQTT at QoS 1, Event Hubs) waits for room and the broker keeps the rest, and a reading nobody acknowledges (QoS 0, the embedded broker) is not stored (counted, logged as `history queue full`)',
    parse: p.int(100, 10_000_000),
    default: () => 100_000,
  },
  // Readings in one multi-row insert.
  { key: 'History:BatchSize', doc: 'readings per multi-row insert', parse: p.int(1, 10_000), default: () => 1000 },
  // Writer lanes (by device), each writing one batch at a time. Unset: 4 on PostgreSQL (a pool), 1 on
  // the embedded database (one connection).
  {
    key: 'History:WriterConcurrency',
    doc: 'writer lanes (by device), each writing one batch at a time',
    defaultDoc: '4 on PostgreSQL, 1 embedded',
    parse: p.int(1, 64),
  },
  // Longest a reading waits for its batch to fill (ms).
  {
    key: 'History:FlushIntervalMilliseconds',
    doc: 'longest a reading waits for its batch to fill',
    parse: p.int(0, 60_000),
    default: () => 50,
  },
];

export interface HistoryConfig {
  readonly enabled: boolean;
  readonly retentionMs: number;
  readonly queueCapacity: number;
  readonly batchSize: number;
  /** Undefined: chosen by the engine. */
  readonly writerConcurrency: number | undefined;
  readonly flushIntervalMs: number;
}

export function toHistoryConfig(resolved: ResolvedConfig): HistoryConfig {
  const v = <T>(key: string) => resolved.values.get(key) as T;
  return {
    enabled: v('History:Enabled'),
    retentionMs: Math.round(v<number>('History:RetentionDays') * 86_400_000),
    queueCapacity: v('History:QueueCapacity'),
    batchSize: v('History:BatchSize'),
    writerConcurrency: v('History:WriterConcurrency'),
    flushIntervalMs: v('History:FlushIntervalMilliseconds'),
  };
}
