import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { ConflatingOutbox } from '../../src/hub/conflating-outbox.js';
import { HubOutboundMessage, readingMessage } from '../../src/hub/outbound-message.js';
import { HubTelemetry } from '../../src/telemetry/hub-telemetry.js';
import { ManualClock } from '../support/manual-clock.js';

describe('delivery telemetry of a connection outbox', () => {
  const reader = new PeriodicExportingMetricReader({ exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE), exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });

  async function collected(): Promise<Map<string, { attributes: Record<string, unknown>; value: unknown }[]>> {
    const { resourceMetrics } = await reader.collect();
    const out = new Map<string, { attributes: Record<string, unknown>; value: unknown }[]>();
    for (const scope of resourceMetrics.scopeMetrics) for (const m of scope.metrics) out.set(m.descriptor.name, m.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value })));
    return out;
  }

  it('counts writes, conflations and a slow consumer by transport, and the latency from receivedAt', async () => {
    const clock = new ManualClock(1_000_000);
    const hub = { connectionCount: 3, groupCount: 2 };
    const telemetry = new HubTelemetry({ name: 'TelemetryHub.Hub', tracer: new BasicTracerProvider().getTracer('t'), meter: meterProvider.getMeter('TelemetryHub.Hub') }, { hub, clock });
    let full = false;
    const outbox = new ConflatingOutbox({ write: () => !full, maxUnkeyed: 1, recorder: telemetry.deliveries('webpubsub') });
    const reading = (seq: number) => readingMessage({ tenantId: 't', deviceId: 'd', seq, ts: 1, receivedAt: clock.now() - 40, data: {} });

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
    expect(metrics.get('telemetryhub.hub.connections')).toEqual([{ attributes: {}, value: 3 }]);
    expect(metrics.get('telemetryhub.hub.groups')).toEqual([{ attributes: {}, value: 2 }]);
    const latency = metrics.get('telemetryhub.delivery.duration')![0]!.value as { count: number; sum: number };
    expect(latency).toMatchObject({ count: 2, sum: 0.08 });
  });
});
