import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ConflatingOutbox } from '../../../src/wire/conflating-outbox.js';
import { Hub } from '../../../src/realtime/hub.js';
import { MemoryConnection } from '../../../src/adapters/memory/memory-connection.js';
import { HubOutboundMessage, readingMessage } from '../../../src/wire/outbound-message.js';
import { HubTelemetry } from '../../../src/adapters/otel/hub-telemetry.js';
import { LocalHistograms } from '../../../src/adapters/otel/local-histograms.js';
import type { TelemetrySource } from '../../../src/adapters/otel/telemetry.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';

describe('delivery telemetry of a connection outbox', () => {
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

  async function collected(): Promise<Map<string, { attributes: Record<string, unknown>; value: unknown }[]>> {
    const { resourceMetrics } = await reader.collect();
    const out = new Map<string, { attributes: Record<string, unknown>; value: unknown }[]>();
    for (const scope of resourceMetrics.scopeMetrics)
      for (const m of scope.metrics)
        out.set(
          m.descriptor.name,
          m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })),
        );
    return out;
  }

  it('counts writes, conflations and a slow consumer by transport, and the latency from receivedAt', async () => {
    const clock = new ManualClock(1_000_000);
    const hub = { connectionsByTransport: new Map([['webpubsub', 3]]), groupCount: 2 };
    const telemetry = new HubTelemetry(source('TelemetryHub.Hub'), { hub, clock });
    let full = false;
    const outbox = new ConflatingOutbox({
      write: () => !full,
      maxUnkeyed: 1,
      recorder: telemetry.deliveries('webpubsub'),
    });
    const reading = (seq: number) =>
      readingMessage({ tenantId: 't', deviceId: 'd', seq, ts: 1, receivedAt: clock.now() - 40, data: {} });

    outbox.offer(reading(1)); // written, 40 ms after it was received
    full = true;
    outbox.offer(reading(2)); // written; the transport is full now
    outbox.offer(reading(3)); // queued
    outbox.offer(reading(4)); // replaces 3: one conflation
    outbox.offer(new HubOutboundMessage({ kind: 'server' }, 'text', 'a')); // queued (the one unkeyed allowed)
    outbox.offer(new HubOutboundMessage({ kind: 'server' }, 'text', 'b')); // overflow: a slow consumer

    const metrics = await collected();
    const webpubsub = { 'telemetryhub.transport': 'webpubsub' };
    expect(metrics.get('telemetryhub.hub.deliveries')).toEqual([{ attributes: webpubsub, value: 2 }]);
    expect(metrics.get('telemetryhub.hub.conflations')).toEqual([{ attributes: webpubsub, value: 1 }]);
    expect(metrics.get('telemetryhub.hub.slow_consumers')).toEqual([{ attributes: webpubsub, value: 1 }]);
    expect(metrics.get('telemetryhub.hub.connections')).toEqual([{ attributes: webpubsub, value: 3 }]);
    expect(metrics.get('telemetryhub.hub.groups')).toEqual([{ attributes: {}, value: 2 }]);
    const latency = metrics.get('telemetryhub.delivery.duration')![0]!.value as { count: number; sum: number };
    expect(latency).toMatchObject({ count: 2, sum: 0.08 });
  });

  it('counts live connections by transport: an instrumented one at 0 before its first, one that emptied at 0', async () => {
    const hub = new Hub();
    const telemetry = new HubTelemetry(source('by-transport'), { hub, clock: new ManualClock(0) });
    telemetry.deliveries('socketio');
    telemetry.deliveries('webpubsub');
    const connections = async () => {
      const { resourceMetrics } = await reader.collect();
      const metric = resourceMetrics.scopeMetrics
        .filter((s) => s.scope.name === 'by-transport')
        .flatMap((s) => s.metrics)
        .find((m) => m.descriptor.name === 'telemetryhub.hub.connections')!;
      return Object.fromEntries(metric.dataPoints.map((p) => [p.attributes['telemetryhub.transport'], p.value]));
    };
    expect(await connections()).toEqual({ socketio: 0, webpubsub: 0 });
    hub.addConnection(new MemoryConnection({ id: 'a' }));
    hub.addConnection(new MemoryConnection({ id: 'b' }));
    expect(await connections()).toEqual({ socketio: 0, webpubsub: 0, memory: 2 });
    hub.removeConnection('a');
    hub.removeConnection('b');
    expect(await connections()).toEqual({ socketio: 0, webpubsub: 0, memory: 0 });
  });

  it('times every socket write of a fan-out, including a slow subscriber’s later one', async () => {
    const clock = new ManualClock(2_000_000);
    const telemetry = new HubTelemetry(source('fan-out'), {
      hub: { connectionsByTransport: new Map(), groupCount: 0 },
      clock,
    });
    const recorder = telemetry.deliveries('socketio');
    const members = Array.from({ length: 5 }, () => new ConflatingOutbox({ write: () => true, recorder }));
    const message = readingMessage({
      tenantId: 't',
      deviceId: 'd',
      seq: 1,
      ts: 1,
      receivedAt: clock.now() - 10,
      data: {},
    });
    for (const m of members) m.offer(message);
    clock.advance(90);
    recorder.written(
      readingMessage({ tenantId: 't', deviceId: 'e', seq: 1, ts: 1, receivedAt: clock.now(), data: {} }),
    );
    recorder.written(message); // the same message, written again from a slow member's outbox

    const { resourceMetrics } = await reader.collect();
    const metrics = resourceMetrics.scopeMetrics.filter((s) => s.scope.name === 'fan-out').flatMap((s) => s.metrics);
    const deliveries = metrics.find((m) => m.descriptor.name === 'telemetryhub.hub.deliveries')!.dataPoints[0]!.value;
    const latency = metrics.find((m) => m.descriptor.name === 'telemetryhub.delivery.duration')!.dataPoints[0]!
      .value as { count: number; max: number; min: number };
    expect(deliveries).toBe(7);
    expect(latency).toMatchObject({ count: 7, min: 0, max: 0.1 });
    expect(latency).toMatchObject({ buckets: { counts: [1, 0, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0] } });
  });
});
