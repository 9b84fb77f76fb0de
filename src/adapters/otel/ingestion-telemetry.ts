import { SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import { formatTraceparent, traceparentContext, unsampledTraceparent } from '../../host/trace-context.js';
import { DROP_REASONS, type DropReason } from '../../wire/drop-reason.js';
import type { IngestionSource, ReadingSink, SinkResult } from '../../realtime/ingestion-source.js';
import type { RawReading } from '../../wire/raw-reading.js';
import type { TelemetrySource } from './telemetry.js';

/**
 * One ingestion source's telemetry (`TelemetryHub.Ingestion.Mqtt` or `.EventHubs`): a consumer
 * span per reading and counts of readings accepted and dropped, by source and reason.
 *
 * The span continues the device's `traceparent` (MQTT 5 user property, Event Hubs `traceparent` or
 * `Diagnostic-Id`), or starts a new trace when the hop stripped it; the reading then carries the
 * span's own `traceparent`, so the hub's send span and the socket writes join the same trace. Whether
 * it is sampled is the hub's decision (`decideCaller`): a device's sampled flag forces nothing, and
 * an unsampled reading carries the device's ids with the flag cleared, so no later hop samples it.
 */
export class IngestionTelemetry {
  readonly #source: TelemetrySource;
  readonly #spanName: string;
  /** Per ingestion source name: accepted, and dropped per reason. Read when metrics are collected. */
  readonly #counts = new Map<string, { accepted: number; dropped: Map<string, number> }>();

  constructor(source: TelemetrySource, options: { spanName: string }) {
    this.#source = source;
    this.#spanName = options.spanName;
    const accepted = source.meter.createObservableCounter('telemetryhub.readings.accepted', {
      unit: '{reading}',
      description: 'Readings accepted by ingestion.',
    });
    const dropped = source.meter.createObservableCounter('telemetryhub.readings.dropped', {
      unit: '{reading}',
      description: 'Readings dropped by ingestion, by reason.',
    });
    accepted.addCallback((result) => {
      for (const [name, counts] of this.#counts)
        result.observe(counts.accepted, { 'telemetryhub.ingestion.source': name });
    });
    dropped.addCallback((result) => {
      for (const [name, counts] of this.#counts) {
        for (const [reason, n] of counts.dropped)
          result.observe(n, { 'telemetryhub.ingestion.source': name, 'telemetryhub.drop.reason': reason });
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
    // Every reason at 0 from the start: an alert on the increase of a series sees its first drop.
    if (counts === undefined)
      this.#counts.set(sourceName, (counts = { accepted: 0, dropped: new Map(DROP_REASONS.map((r) => [r, 0])) }));
    const c = counts;
    const drop = (reason: string) => c.dropped.set(reason, (c.dropped.get(reason) ?? 0) + 1);
    const source = this.#source;
    const spanName = this.#spanName;
    return {
      offer(raw: RawReading): SinkResult {
        const parent = source.decideCaller(traceparentContext(raw.traceparent));
        const span = source.startSpan(spanName, { kind: SpanKind.CONSUMER }, parent);
        // The hub's decision travels with the reading, so later hops neither sample it anew nor follow the device.
        raw.traceparent = span !== undefined ? formatTraceparent(span.spanContext()) : decidedTraceparent(parent);
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

/**
 * A source without ingestion telemetry of its own, while the hub's send spans are recorded: its
 * readings' device `traceparent` still gets the hub's sampling decision (`decideCaller`) before the
 * send span treats it as the hub's own, as `IngestionTelemetry` does with its spans.
 */
export function decideDeviceTraces(source: IngestionSource, tracing: TelemetrySource): IngestionSource {
  return {
    name: source.name,
    get connected() {
      return source.connected;
    },
    run: (sink, signal) =>
      source.run(
        {
          offer(raw) {
            if (raw.traceparent !== undefined)
              raw.traceparent = decidedTraceparent(tracing.decideCaller(traceparentContext(raw.traceparent)));
            return sink.offer(raw);
          },
          refused: (reason, raw) => sink.refused?.(reason, raw),
        },
        signal,
      ),
  };
}

/** The traceparent of a decided context: its ids and flag; a new unsampled trace when it had none (absent or invalid). */
function decidedTraceparent(decided: Context): string {
  const spanContext = trace.getSpanContext(decided);
  return spanContext === undefined ? unsampledTraceparent() : formatTraceparent(spanContext);
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
