import {
  ProxyTracerProvider,
  trace,
  TraceFlags,
  type Context,
  type Meter,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import type { HistogramOptions, LocalHistogram } from './local-histograms.js';
import type { SourceFilter } from './source-filter.js';

/** pino writes bindings (the category) as plain JSON strings: `"category":"Ingestion.Mqtt"`. */
const CATEGORY = /"category":"([A-Za-z0-9_.]+)"/;

/** One named source that a subscription matched: spans through `tracer`, instruments on `meter`. */
export interface TelemetrySource {
  readonly name: string;
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** A histogram for hot paths: a series per attribute set, aggregated in place (see LocalHistograms). */
  histogram(name: string, options: HistogramOptions): LocalHistogram;
  /**
   * A span under `parent`, or nothing when the trace is not sampled: a parent's decision is kept,
   * and a new trace is kept at `Telemetry:SampleRatio`. Deciding before the SDK is called means a
   * dropped trace allocates no span (the SDK's own unsampled span cost ~3 µs a request). Only the
   * hub's own contexts are parents as they come; a caller's goes through `decideCaller` first.
   */
  startSpan(name: string, options: SpanOptions, parent: Context): Span | undefined;
  /**
   * The hub's decision on a context a caller sent (an HTTP `traceparent`, a device's MQTT 5 user
   * property, an Event Hubs `traceparent`/`Diagnostic-Id`): the caller's trace and span ids, but the
   * sampled flag set at `Telemetry:SampleRatio` as for a new trace, whatever the caller's flag said.
   * Otherwise any caller could have every one of its requests traced and exported. A context
   * without a valid span context (a new trace) is returned as it is.
   */
  decideCaller(parent: Context): Context;
}

/** A tracer that records nothing: a source's tracer when no exporter takes spans. */
const NO_TRACES = new ProxyTracerProvider();

/** What the SDK part provides; absent when telemetry is off. */
export interface TelemetryProviders {
  /** Absent when nothing exports spans (Prometheus alone): no span is started. */
  tracer?(name: string): Tracer;
  meter(name: string): Meter;
  histogram(scope: string, name: string, options: HistogramOptions): LocalHistogram;
  /** The share of new traces kept. */
  readonly sampleRatio: number;
  /** A log line's fields (pino JSON), as an OpenTelemetry log record of the source; absent when nothing exports logs. */
  emitLog?(source: string, fields: Record<string, unknown>): void;
  /** Opens what serves the telemetry (the Prometheus endpoint), when the host starts. */
  start?(signal: AbortSignal): Promise<void>;
  /** Exports what is buffered and stops the exporters; resolves by the signal's abort at the latest. */
  shutdown(signal: AbortSignal): Promise<void>;
}

/**
 * The app's telemetry: named sources, each recording only when a subscription matches it. An
 * unmatched source (or telemetry off) gives `undefined`, so an area holds no recorder at all and its
 * hot path costs one `undefined` check: nothing is allocated, no span started.
 */
export class Telemetry {
  /** Off: no exporter, every source unmatched. */
  static readonly off = new Telemetry(undefined, undefined);

  readonly #providers: TelemetryProviders | undefined;
  readonly #filter: SourceFilter | undefined;
  /** Whether each log source seen so far is subscribed (categories are few and fixed). */
  readonly #logSources = new Map<string, boolean>();

  constructor(providers: TelemetryProviders | undefined, filter: SourceFilter | undefined) {
    this.#providers = providers;
    this.#filter = filter;
  }

  get enabled(): boolean {
    return this.#providers !== undefined;
  }

  /** The source when telemetry is on and `Telemetry:Sources` matches its name; else undefined. */
  source(name: string): TelemetrySource | undefined {
    if (!this.subscribed(name)) return undefined;
    const providers = this.#providers!;
    const tracing = providers.tracer !== undefined;
    const tracer = providers.tracer?.(name) ?? NO_TRACES.getTracer(name);
    const ratio = providers.sampleRatio;
    const keepNew = () => ratio >= 1 || Math.random() < ratio;
    return {
      name,
      tracer,
      meter: providers.meter(name),
      histogram: (metric, options) => providers.histogram(name, metric, options),
      startSpan(spanName, options, parent) {
        if (!tracing) return undefined;
        const from = trace.getSpanContext(parent);
        const keep = from === undefined ? keepNew() : (from.traceFlags & TraceFlags.SAMPLED) !== 0;
        return keep ? tracer.startSpan(spanName, options, parent) : undefined;
      },
      decideCaller(parent) {
        const from = trace.getSpanContext(parent);
        if (from === undefined) return parent;
        // Random, not by trace id: a caller chooses its trace ids, and could choose ones a ratio keeps.
        const flags = keepNew() ? from.traceFlags | TraceFlags.SAMPLED : from.traceFlags & ~TraceFlags.SAMPLED;
        return flags === from.traceFlags ? parent : trace.setSpanContext(parent, { ...from, traceFlags: flags });
      },
    };
  }

  subscribed(name: string): boolean {
    return this.#providers !== undefined && this.#filter !== undefined && this.#filter.matches(name);
  }

  /** Whether any `TelemetryHub.Logs.*` source is subscribed: else log lines need not be looked at. */
  get recordsLogs(): boolean {
    return (
      this.#providers?.emitLog !== undefined &&
      this.#filter !== undefined &&
      this.#filter.mayMatchUnder('TelemetryHub.Logs.')
    );
  }

  /**
   * A pino JSON line, recorded when `TelemetryHub.Logs.<its category>` is subscribed (`TelemetryHub.Logs.Host`
   * for lines without a category). Only called with telemetry on (see forwardLogLines).
   */
  log(line: string): void {
    // The category is read from the text: a line of an unsubscribed source is never parsed.
    const source = `TelemetryHub.Logs.${CATEGORY.exec(line)?.[1] ?? 'Host'}`;
    let subscribed = this.#logSources.get(source);
    if (subscribed === undefined) this.#logSources.set(source, (subscribed = this.subscribed(source)));
    if (!subscribed) return;
    let fields: Record<string, unknown>;
    try {
      fields = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    this.#providers!.emitLog!(source, fields);
  }

  /**
   * Starts first (the Prometheus endpoint answers while the rest starts) and stops last, after the
   * server and every other service, so the spans and metrics of the shutdown itself leave too; the
   * host's shutdown timeout bounds the flush.
   */
  readonly service: HostedService = {
    name: 'telemetry',
    start: async (signal) => this.#providers?.start?.(signal),
    stop: async (signal) => this.#providers?.shutdown(signal),
  };
}
