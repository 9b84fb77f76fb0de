import type { Clock } from '../../host/clock.js';
import type { HistoryWriter } from '../../features/history/history-writer.js';
import type { TelemetrySource } from './telemetry.js';

/** Commit lag buckets, seconds: a batch waits up to the flush interval (ms), a database in trouble much longer. */
const LAG_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * `TelemetryHub.History`: the history writer's backlog, what it stored, what it did not store and
 * why, and each reading's lag from `receivedAt` to its row committed. Counts are read from the
 * writer's own stats when metrics are collected; every series exists from the start (at 0), so an
 * alert on their increase sees the first refusal.
 */
export function recordHistory(
  source: TelemetrySource,
  writer: Pick<HistoryWriter, 'stats' | 'observe'>,
  clock: Clock,
): void {
  const { meter } = source;
  meter
    .createObservableUpDownCounter('telemetryhub.history.pending', {
      unit: '{reading}',
      description: 'Accepted readings waiting for the database, queued or in a batch being written.',
    })
    .addCallback((result) => result.observe(writer.stats().pending));
  meter
    .createObservableCounter('telemetryhub.history.written', {
      unit: '{reading}',
      description: 'Readings committed to the history.',
    })
    .addCallback((result) => result.observe(writer.stats().written));
  meter
    .createObservableCounter('telemetryhub.history.refused', {
      unit: '{reading}',
      description: 'Readings not stored, by reason: the queue was full, or the database refused the row.',
    })
    .addCallback((result) => {
      const stats = writer.stats();
      result.observe(stats.dropped, { 'telemetryhub.history.reason': 'queue_full' });
      result.observe(stats.rejected, { 'telemetryhub.history.reason': 'rejected' });
    });
  meter
    .createObservableCounter('telemetryhub.history.failed_batches', {
      unit: '{batch}',
      description: 'Batches the database refused (each retried until stored).',
    })
    .addCallback((result) => result.observe(writer.stats().failedBatches));
  const lag = source
    .histogram('telemetryhub.history.lag', {
      unit: 's',
      description: 'From a reading received by the hub to its row committed.',
      boundaries: LAG_BUCKETS,
    })
    .series('', () => ({}));
  writer.observe((readings) => {
    const now = clock.now();
    for (const r of readings) lag.record(Math.max(0, now - r.receivedAt) / 1000);
  });
}
