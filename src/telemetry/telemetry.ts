import { trace, TraceFlags, type Context, type Meter, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
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
   * dropped trace allocates no span (the SDK's own unsampled span cost ~3 µs a request).
   */
  startSpan(name: string, options: SpanOptions, parent: Context): Span | undefined;
}

/** What the SDK part provides; absent when telemetry is off. */
export interface TelemetryProviders {
  tracer(name: string): Tracer;
  meter(name: string): Meter;
  histogram(scope: string, name: string, options: HistogramOptions): LocalHistogram;
  /** The share of new traces kept. */
  readonly sampleRatio: number;
  /** A log line's fields (pino JSON), as an OpenTelemetry log record of the source. */
  emitLog(source: string, fields: Record<string, unknown>): void;
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
    const tracer = providers.tracer(name);
    const ratio = providers.sampleRatio;
    return {
      name,
      tracer,
      meter: providers.meter(name),
      histogram: (metric, options) => providers.histogram(name, metric, options),
      startSpan(spanName, options, parent) {
        const from = trace.getSpanContext(parent);
        const keep = from === undefined ? ratio >= 1 || Math.random() < ratio : (from.traceFlags & TraceFlags.SAMPLED) !== 0;
        return keep ? tracer.startSpan(spanName, options, parent) : undefined;
      },
    };
  }

  subscribed(name: string): boolean {
    return this.#providers !== undefined && this.#filter !== undefined && this.#filter.matches(name);
  }

  /** Whether any `TelemetryHub.Logs.*` source is subscribed: else log lines need not be looked at. */
  get recordsLogs(): boolean {
    return this.#providers !== undefined && this.#filter !== undefined && this.#filter.mayMatchUnder('TelemetryHub.Logs.');
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
    this.#providers!.emitLog(source, fields);
  }

  /**
   * Stops last, after the server and every other service, so the spans and metrics of the
   * shutdown itself leave too; the host's shutdown timeout bounds the flush.
   */
  readonly service: HostedService = {
    name: 'telemetry',
    start: async () => undefined,
    stop: async (signal) => this.#providers?.shutdown(signal),
  };
}
