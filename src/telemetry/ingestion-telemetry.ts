import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { formatTraceparent, traceparentContext, unsampledTraceparent } from '../host/trace-context.js';
import type { DropReason } from '../ingest/drop-reason.js';
import type { IngestionSource, RawReading, ReadingSink, SinkResult } from '../ingest/source.js';
import type { TelemetrySource } from './telemetry.js';

/**
 * One ingestion source's telemetry (`TelemetryHub.Ingestion.Mqtt` or `.EventHubs`): a consumer
 * span per reading and counts of readings accepted and dropped, by source and reason.
 *
 * The span continues the device's `traceparent` (MQTT 5 user property, Event Hubs `traceparent` or
 * `Diagnostic-Id`), or starts a new trace when the hop stripped it; the reading then carries the
 * span's own `traceparent`, so the hub's send span and the socket writes join the same trace.
 */
export class IngestionTelemetry {
  readonly #source: TelemetrySource;
  readonly #spanName: string;
  /** Per ingestion source name: accepted, and dropped per reason. Read when metrics are collected. */
  readonly #counts = new Map<string, { accepted: number; dropped: Map<string, number> }>();

  constructor(source: TelemetrySource, options: { spanName: string }) {
    this.#source = source;
    this.#spanName = options.spanName;
    const accepted = source.meter.createObservableCounter('telemetryhub.readings.accepted', { unit: '{reading}', description: 'Readings accepted by ingestion.' });
    const dropped = source.meter.createObservableCounter('telemetryhub.readings.dropped', { unit: '{reading}', description: 'Readings dropped by ingestion, by reason.' });
    accepted.addCallback((result) => {
      for (const [name, counts] of this.#counts) result.observe(counts.accepted, { 'telemetryhub.ingestion.source': name });
    });
    dropped.addCallback((result) => {
      for (const [name, counts] of this.#counts) {
        for (const [reason, n] of counts.dropped) result.observe(n, { 'telemetryhub.ingestion.source': name, 'telemetryhub.drop.reason': reason });
      }
    });
  }

  /** The same source, handing its readings to the sink through this telemetry. */
  instrument(source: IngestionSource): IngestionSource {
    return {
      name: source.name,
      get connected() {
        return source.connected;
      },
      run: (sink, signal) => source.run(this.sink(sink, source.name), signal),
    };
  }

  sink(inner: ReadingSink, sourceName: string): ReadingSink {
    let counts = this.#counts.get(sourceName);
    if (counts === undefined) this.#counts.set(sourceName, (counts = { accepted: 0, dropped: new Map() }));
    const c = counts;
    const drop = (reason: string) => c.dropped.set(reason, (c.dropped.get(reason) ?? 0) + 1);
    const source = this.#source;
    const spanName = this.#spanName;
    return {
      offer(raw: RawReading): SinkResult {
        const span = source.startSpan(spanName, { kind: SpanKind.CONSUMER }, traceparentContext(raw.traceparent));
        if (span !== undefined) raw.traceparent = formatTraceparent(span.spanContext());
        // A new trace not sampled passes its decision on, so later hops do not sample the reading anew.
        else if (raw.traceparent === undefined) raw.traceparent = unsampledTraceparent();
        const result = inner.offer(raw);
        if (result.accepted) c.accepted++;
        else drop(result.reason);
        if (span !== undefined) {
          describe(span, sourceName, raw, result);
          span.end();
        }
        return result;
      },
      refused(reason: DropReason, raw: RawReading): void {
        drop(reason);
        inner.refused?.(reason, raw);
      },
    };
  }
}

function describe(span: Span, sourceName: string, raw: RawReading, result: SinkResult): void {
  span.setAttributes({
    'messaging.operation.type': 'process',
    'telemetryhub.ingestion.source': sourceName,
    'telemetryhub.tenant_id': raw.tenantId ?? '',
    'telemetryhub.device_id': raw.deviceId ?? '',
    'messaging.message.body.size': raw.payload.byteLength,
  });
  // A dropped reading is an error of the trace: tail sampling keeps it.
  if (!result.accepted) {
    span.setAttribute('telemetryhub.drop.reason', result.reason);
    span.setStatus({ code: SpanStatusCode.ERROR, message: result.reason });
  }
}
