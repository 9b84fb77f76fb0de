import type { IncomingMessage } from 'node:http';
import { trace, SpanKind, TraceFlags } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { traceparentContext } from '../../../src/host/trace-context.js';
import { MemorySource } from '../../../src/adapters/memory/memory-source.js';
import type { ReadingSink } from '../../../src/realtime/ingestion-source.js';
import type { RawReading } from '../../../src/wire/raw-reading.js';
import { httpRequestTracer } from '../../../src/adapters/otel/http-telemetry.js';
import { decideDeviceTraces, IngestionTelemetry } from '../../../src/adapters/otel/ingestion-telemetry.js';
import { LocalHistograms } from '../../../src/adapters/otel/local-histograms.js';
import { SourceFilter } from '../../../src/adapters/otel/source-filter.js';
import { Telemetry, type TelemetrySource } from '../../../src/adapters/otel/telemetry.js';
import { eventually } from '../../support/app-harness.js';

// Issue 25 item 5: a remote parent's sampled flag does not override Telemetry:SampleRatio for
// callers the hub does not trust (HTTP, a device's MQTT 5 / Event Hubs traceparent).

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const SAMPLED = `00-${TRACE}-${CALLER_SPAN}-01`;
const UNSAMPLED = `00-${TRACE}-${CALLER_SPAN}-00`;

/** The app's Telemetry with the SDK set up as createTelemetry does, spans into memory. */
function telemetry(sampleRatio: number): { source: (name: string) => TelemetrySource; spans: InMemorySpanExporter } {
  const spans = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new SimpleSpanProcessor(spans)],
  });
  const meters = new MeterProvider();
  const histograms = new LocalHistograms();
  const t = new Telemetry(
    {
      tracer: (name) => provider.getTracer(name),
      meter: (name) => meters.getMeter(name),
      histogram: (scope, name, options) => histograms.create(scope, name, options),
      sampleRatio,
      emitLog: () => undefined,
      shutdown: async () => undefined,
    },
    new SourceFilter(['TelemetryHub.*']),
  );
  return { source: (name) => t.source(name)!, spans };
}

function request(tracing: TelemetrySource, traceparent: string) {
  const t = httpRequestTracer(tracing)({ method: 'GET', headers: { traceparent } } as unknown as IncomingMessage);
  t.end({ method: 'GET', route: '/v1/devices', status: 200, durationMs: 1 });
  return t;
}

/** A sink that keeps what reaches it. */
function collecting(): ReadingSink & { got: RawReading[] } {
  const got: RawReading[] = [];
  return { got, offer: (raw) => (got.push(raw), { accepted: true }) };
}

describe("a caller's sampled flag never overrides Telemetry:SampleRatio", () => {
  it('HTTP: at ratio 0 a request sent as sampled records no span, is logged in its trace and passes on "not sampled"', () => {
    const { source, spans } = telemetry(0);
    const t = request(source('TelemetryHub.Http'), SAMPLED);
    expect(spans.getFinishedSpans()).toEqual([]);
    expect(t.traceId).toBe(TRACE);
    expect(trace.getSpanContext(t.context)).toMatchObject({
      traceId: TRACE,
      spanId: CALLER_SPAN,
      traceFlags: TraceFlags.NONE,
    });
  });

  it("HTTP: at ratio 1 a request the caller did not sample is recorded, in the caller's trace", () => {
    const { source, spans } = telemetry(1);
    request(source('TelemetryHub.Http'), UNSAMPLED);
    const [span] = spans.getFinishedSpans();
    expect(span?.spanContext().traceId).toBe(TRACE);
    expect(span?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
  });

  it('a ratio between keeps about that share of sampled callers: the flag buys nothing', () => {
    const tracing = telemetry(0.25).source('TelemetryHub.Http');
    const parent = traceparentContext(SAMPLED);
    let kept = 0;
    for (let i = 0; i < 4000; i++)
      if ((trace.getSpanContext(tracing.decideCaller(parent))!.traceFlags & TraceFlags.SAMPLED) !== 0) kept++;
    expect(kept / 4000).toBeGreaterThan(0.2);
    expect(kept / 4000).toBeLessThan(0.3);
  });

  it("devices: at ratio 0 a reading sent as sampled records no span and carries the device's ids unsampled to the hub's send span", () => {
    const { source, spans } = telemetry(0);
    const ingestion = new IngestionTelemetry(source('TelemetryHub.Ingestion.Mqtt'), { spanName: 'process' });
    const sink = collecting();
    ingestion
      .sink(sink, 'mqtt')
      .offer({ tenantId: 't', deviceId: 'd', payload: new Uint8Array(), traceparent: SAMPLED });
    expect(sink.got[0]!.traceparent).toBe(UNSAMPLED);

    // The hub's send span follows the reading's flag: the hub's own decision from here on.
    const hub = source('TelemetryHub.Hub');
    expect(
      hub.startSpan('send device', { kind: SpanKind.PRODUCER }, traceparentContext(sink.got[0]!.traceparent)),
    ).toBeUndefined();
    expect(spans.getFinishedSpans()).toEqual([]);
  });

  it("the hub's own sampled hops are believed: a send span under a reading the hub sampled is recorded at any ratio", () => {
    const { source, spans } = telemetry(0);
    source('TelemetryHub.Hub').startSpan('send device', {}, traceparentContext(SAMPLED))!.end();
    expect(spans.getFinishedSpans().map((s) => s.name)).toEqual(['send device']);
  });

  it("a source without ingestion spans still has its devices' flags decided before the hub sees them", async () => {
    const { source } = telemetry(0);
    const devices = new MemorySource('mqtt');
    const sink = collecting();
    const stop = new AbortController();
    const running = decideDeviceTraces(devices, source('TelemetryHub.Hub')).run(sink, stop.signal);
    devices.publish({ tenantId: 't', deviceId: 'd', payload: new Uint8Array(), traceparent: SAMPLED });
    devices.publish({ tenantId: 't', deviceId: 'd', payload: new Uint8Array() });
    await eventually(() => sink.got.length === 2, 2000, 'both readings');
    stop.abort();
    await running;
    expect(sink.got[0]!.traceparent).toBe(UNSAMPLED);
    // No traceparent stays none: the hub's send span decides it as a new trace, at the ratio.
    expect(sink.got[1]!.traceparent).toBeUndefined();
  });

  it('issue 27 item 7: a trusted proxy (the gateway) has sampled already: its flag stands, both ways, at any ratio', () => {
    const trusted = (req: IncomingMessage) => req.headers['x-from'] === 'gateway';
    const { source, spans } = telemetry(0);
    const sampled = httpRequestTracer(
      source('TelemetryHub.Http'),
      trusted,
    )({ method: 'GET', headers: { traceparent: SAMPLED, 'x-from': 'gateway' } } as unknown as IncomingMessage);
    sampled.end({ method: 'GET', route: '/v1/devices', status: 200, durationMs: 1 });
    expect(spans.getFinishedSpans().map((s) => s.parentSpanContext?.spanId)).toEqual([CALLER_SPAN]);
    const ratio1 = telemetry(1);
    const unsampled = httpRequestTracer(
      ratio1.source('TelemetryHub.Http'),
      trusted,
    )({ method: 'GET', headers: { traceparent: UNSAMPLED, 'x-from': 'gateway' } } as unknown as IncomingMessage);
    unsampled.end({ method: 'GET', route: '/v1/devices', status: 200, durationMs: 1 });
    // The gateway did not record its client span: a server span under it would lack its parent.
    expect(ratio1.spans.getFinishedSpans()).toEqual([]);
    // Anyone else is still decided at the ratio.
    request(source('TelemetryHub.Http'), SAMPLED);
    expect(spans.getFinishedSpans()).toHaveLength(1);
  });
});
