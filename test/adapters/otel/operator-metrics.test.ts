import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisBackplane } from '../../../src/adapters/redis/redis-backplane.js';
import { PgliteConnector } from '../../../src/adapters/pglite/pglite-connector.js';
import { TenantDatabase } from '../../../src/features/storage/tenant-database.js';
import { systemClock } from '../../../src/host/clock.js';
import { HealthChecks } from '../../../src/host/health/health-checks.js';
import { HistoryWriter } from '../../../src/features/history/history-writer.js';
import { MemoryBackplane } from '../../../src/adapters/memory/memory-backplane.js';
import { DROP_REASONS } from '../../../src/wire/drop-reason.js';
import { instrumentBackplane } from '../../../src/adapters/otel/backplane-telemetry.js';
import { recordHealth } from '../../../src/adapters/otel/health-telemetry.js';
import { recordHistory } from '../../../src/adapters/otel/history-telemetry.js';
import { IngestionTelemetry } from '../../../src/adapters/otel/ingestion-telemetry.js';
import { LocalHistograms } from '../../../src/adapters/otel/local-histograms.js';
import type { TelemetrySource } from '../../../src/adapters/otel/telemetry.js';
import { eventually } from '../../support/app-harness.js';
import { freshDataDirectory } from '../../support/embedded-database.js';
import { freePort } from '../../support/private-server.js';
import { requireService } from '../../support/services.js';

/**
 * The metrics the operator's dashboard and alert rules (deploy/grafana, deploy/prometheus) read
 * besides the hub's own: history writer, backplane errors, and series that exist at 0 before their
 * first event (an alert on `increase()` of a series that appears with 1 never fires).
 */
describe('operator metrics', () => {
  const histograms = new LocalHistograms();
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
    metricProducers: [histograms],
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const source = (name: string): TelemetrySource => ({
    name,
    tracer: new BasicTracerProvider().getTracer(name),
    meter: meterProvider.getMeter(name),
    histogram: (metric, options) => histograms.create(name, metric, options),
    startSpan: () => undefined,
    decideCaller: (parent) => parent,
  });

  /** The data points of `metric` in scope `scope`, as [attributes, value]. */
  async function points(scope: string, metric: string): Promise<[Record<string, unknown>, unknown][]> {
    const { resourceMetrics } = await reader.collect();
    const found = resourceMetrics.scopeMetrics
      .filter((s) => s.scope.name === scope)
      .flatMap((s) => s.metrics)
      .find((m) => m.descriptor.name === metric);
    return (found?.dataPoints ?? []).map((p) => [p.attributes, p.value]);
  }
  const value = async (scope: string, metric: string, attributes: Record<string, unknown> = {}) =>
    (await points(scope, metric)).find(([a]) => Object.entries(attributes).every(([k, v]) => a[k] === v))?.[1];

  describe('history writer (embedded PGlite)', () => {
    let data: ReturnType<typeof freshDataDirectory>;
    let connector: PgliteConnector;
    beforeAll(async () => {
      data = freshDataDirectory();
      connector = await PgliteConnector.open(data.path);
    });
    afterAll(async () => {
      await connector?.close();
      data?.remove();
    });

    it('records the backlog, readings written, readings refused for a full queue, and the commit lag', async () => {
      const writer = new HistoryWriter({
        database: new TenantDatabase(connector),
        capacity: 3,
        batchSize: 100,
        flushIntervalMs: 60_000,
        clock: systemClock,
        log: { warn: () => undefined },
      });
      recordHistory(source('history'), writer, systemClock);
      expect(
        await value('history', 'telemetryhub.history.refused', { 'telemetryhub.history.reason': 'queue_full' }),
      ).toBe(0);
      expect(
        await value('history', 'telemetryhub.history.refused', { 'telemetryhub.history.reason': 'rejected' }),
      ).toBe(0);
      expect(await value('history', 'telemetryhub.history.failed_batches')).toBe(0);

      const receivedAt = Date.now() - 2_000;
      for (let seq = 1; seq <= 5; seq++)
        writer.offer({ tenantId: 'hist', deviceId: 'd1', seq, ts: receivedAt, receivedAt, data: { v: seq } });
      expect(await value('history', 'telemetryhub.history.pending')).toBe(3);
      expect(
        await value('history', 'telemetryhub.history.refused', { 'telemetryhub.history.reason': 'queue_full' }),
      ).toBe(2);

      await writer.drain();
      expect(await value('history', 'telemetryhub.history.pending')).toBe(0);
      expect(await value('history', 'telemetryhub.history.written')).toBe(3);
      const lag = (await value('history', 'telemetryhub.history.lag')) as { count: number; min: number };
      expect(lag.count).toBe(3);
      expect(lag.min).toBeGreaterThanOrEqual(2);
    });
  });

  describe('backplane errors', () => {
    const log = pino({ level: 'silent' });
    const closers: (() => Promise<unknown>)[] = [];
    afterAll(async () => {
      for (const close of closers) await close();
    });

    it('counts a publish dropped while Redis is away and its connection errors, every type at 0 before', async () => {
      const backplane = new RedisBackplane({
        url: `redis://127.0.0.1:${await freePort()}`,
        hubName: `errs-${process.pid}`,
        log,
      });
      closers.push(() => backplane.close());
      instrumentBackplane(new MemoryBackplane(), source('bp-down'), backplane.errors);
      const errors = async () =>
        Object.fromEntries(
          (await points('bp-down', 'telemetryhub.backplane.errors')).map(([a, v]) => [a['error.type'], v]),
        );
      expect(await errors()).toEqual({ connection: 0, not_connected: 0, publish: 0, subscribe: 0, malformed: 0 });

      await backplane.start();
      backplane.publish({
        kind: 'all',
        message: { source: { kind: 'server' }, dataType: 'text', data: 'x', conflationKey: undefined },
      });
      await eventually(async () => ((await errors()).connection as number) >= 1, 5_000, 'a connection error counted');
      expect(await errors()).toMatchObject({ not_connected: 1, publish: 0, malformed: 0 });
    });

    it('counts a message on its channel that does not decode', async ({ skip }) => {
      if (!(await requireService('redis', 6379))) return skip();
      const hubName = `malformed-${process.pid}-${Date.now()}`;
      const backplane = new RedisBackplane({ url: 'redis://127.0.0.1:6379', hubName, log });
      closers.push(() => backplane.close());
      instrumentBackplane(new MemoryBackplane(), source('bp-up'), backplane.errors);
      await backplane.start();
      await eventually(async () => (await backplane.healthy()) === undefined, 5_000, 'the backplane subscribed');
      const redis = new Redis('redis://127.0.0.1:6379');
      closers.push(() => redis.quit());
      await redis.publish(`telemetry-hub:${hubName}:backplane`, 'not a backplane message');
      await eventually(
        async () => (await value('bp-up', 'telemetryhub.backplane.errors', { 'error.type': 'malformed' })) === 1,
        5_000,
        'the malformed message counted',
      );
    });
  });

  it('has every drop reason of an ingestion source at 0 before its first drop', async () => {
    const telemetry = new IngestionTelemetry(source('ingest'), { spanName: 'process' });
    const sink = telemetry.sink({ offer: () => ({ accepted: true }) }, 'mqtt');
    const dropped = async () =>
      Object.fromEntries(
        (await points('ingest', 'telemetryhub.readings.dropped')).map(([a, v]) => [a['telemetryhub.drop.reason'], v]),
      );
    expect(await dropped()).toEqual(Object.fromEntries(DROP_REASONS.map((r) => [r, 0])));
    sink.refused!('bad_json', { tenantId: 't', deviceId: 'd', payload: Buffer.from('{') });
    expect(await dropped()).toMatchObject({ bad_json: 1, too_large: 0 });
  });

  it('has every status of a health check at 0 from its first result', async () => {
    const health = new HealthChecks({ timeoutMs: 1000 });
    let status: 'Healthy' | 'Unhealthy' = 'Healthy';
    health.add({ name: 'dep', tags: ['ready'], check: () => ({ status }) });
    recordHealth(source('health'), health);
    await health.run('ready');
    const results = async () =>
      Object.fromEntries(
        (await points('health', 'telemetryhub.health.check.results')).map(([a, v]) => [
          a['telemetryhub.health.status'],
          v,
        ]),
      );
    expect(await results()).toEqual({ Healthy: 1, Degraded: 0, Unhealthy: 0 });
    status = 'Unhealthy';
    await health.run('ready');
    expect(await results()).toEqual({ Healthy: 1, Degraded: 0, Unhealthy: 1 });
    expect(await value('health', 'telemetryhub.health.check.healthy', { 'telemetryhub.health.check': 'dep' })).toBe(0);
  });
});
