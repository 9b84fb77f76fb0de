import { createRequire } from 'node:module';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { MetricReader } from '@opentelemetry/sdk-metrics';
import type { Logger } from 'pino';
import { LocalHistograms } from './local-histograms.js';
import { toLogRecord } from './log-record.js';
import { PrometheusEndpoint } from './prometheus-endpoint.js';
import { SourceFilter } from './source-filter.js';
import { Telemetry } from './telemetry.js';
import type { TelemetryConfig } from './telemetry-config.js';

/**
 * Characters kept of any span or log record attribute value: what a caller sends (a dropped
 * reading's device id, a log field) must not inflate what is exported. Ours are far shorter.
 */
const MAX_ATTRIBUTE_LENGTH = 1024;

export interface TelemetryIdentity {
  /** `Hub:InstanceId`: `service.instance.id`, so an operator sees which instance is saturated. */
  instanceId: string;
  /** Where the Prometheus endpoint says where it listens. */
  log: Pick<Logger, 'info'>;
}

/**
 * The OpenTelemetry SDK from `Telemetry:*`: traces, metrics and logs to one OTLP/HTTP (protobuf)
 * endpoint, or to stdout with `Telemetry:Console` (Development); and/or the metrics at a
 * Prometheus scrape endpoint (`Telemetry:Prometheus:Enabled`), which alone creates no tracer or
 * logger provider. None set: `Telemetry.off`, and no SDK object is created at all.
 */
export function createTelemetry(config: TelemetryConfig, identity: TelemetryIdentity): Telemetry {
  const endpoint = config.otlpEndpoint;
  const push = endpoint !== undefined || config.console;
  if (!push && !config.prometheus.enabled) return Telemetry.off;
  // Loaded only when on (~0.5 s of module loading at start on a busy machine otherwise).
  const require = createRequire(import.meta.url);
  const { detectResources, envDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { MeterProvider } = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');

  const resource = detectResources({ detectors: [envDetector] }).merge(
    resourceFromAttributes({ 'service.name': config.serviceName, 'service.instance.id': identity.instanceId }),
  );
  const histograms = new LocalHistograms();
  const readers: MetricReader[] = [];
  const pushed = push ? pushExporters(require, config, resource, histograms) : undefined;
  if (pushed) readers.push(pushed.metricReader);
  let scrape: PrometheusEndpoint | undefined;
  if (config.prometheus.enabled) {
    const { PrometheusExporter } =
      require('@opentelemetry/exporter-prometheus') as typeof import('@opentelemetry/exporter-prometheus');
    // Cumulative, collected on each scrape; the listener is ours (PrometheusEndpoint), not the exporter's.
    const exporter = new PrometheusExporter({ preventServerStart: true, metricProducers: [histograms] });
    readers.push(exporter);
    scrape = new PrometheusEndpoint({
      host: config.prometheus.host,
      port: config.prometheus.port,
      serve: (req, res) => exporter.getMetricsRequestHandler(req, res),
      log: identity.log,
    });
  }
  const meterProvider = new MeterProvider({ resource, readers });

  return new Telemetry(
    {
      ...(pushed ? { tracer: pushed.tracer, emitLog: pushed.emitLog } : {}),
      meter: (name) => meterProvider.getMeter(name),
      sampleRatio: config.sampleRatio,
      histogram: (scope, name, options) => histograms.create(scope, name, options),
      start: async () => scrape?.start(),
      async shutdown(signal) {
        const done = Promise.allSettled([scrape?.stop(), pushed?.shutdown(), meterProvider.shutdown()]);
        await new Promise<void>((resolve) => {
          if (signal.aborted) return resolve();
          signal.addEventListener('abort', () => resolve(), { once: true });
          void done.then(() => resolve());
        });
      },
    },
    new SourceFilter(config.sources),
  );
}

/** Spans, a periodic metric export and log records, to the OTLP endpoint or the console. */
function pushExporters(
  require: NodeJS.Require,
  config: TelemetryConfig,
  resource: Resource,
  histograms: LocalHistograms,
) {
  const endpoint = config.otlpEndpoint;
  const { OTLPLogExporter } =
    require('@opentelemetry/exporter-logs-otlp-proto') as typeof import('@opentelemetry/exporter-logs-otlp-proto');
  const { OTLPMetricExporter } =
    require('@opentelemetry/exporter-metrics-otlp-proto') as typeof import('@opentelemetry/exporter-metrics-otlp-proto');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  const { BatchLogRecordProcessor, ConsoleLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } =
    require('@opentelemetry/sdk-logs') as typeof import('@opentelemetry/sdk-logs');
  const { ConsoleMetricExporter, PeriodicExportingMetricReader } =
    require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  const {
    AlwaysOnSampler,
    BasicTracerProvider,
    BatchSpanProcessor,
    ConsoleSpanExporter,
    ParentBasedSampler,
    SimpleSpanProcessor,
  } = require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');

  // No global context manager: on Node 20 AsyncLocalStorage hooks every promise, which halved the
  // HTTP pipeline's throughput (bench/). Trace context travels explicitly instead: on the request
  // (its RequestTrace), on the reading (`traceparent`) and on the message to the sockets.
  const tracerProvider = new BasicTracerProvider({
    resource,
    // Parent-based with the ratio for new traces: the ratio is applied by TelemetrySource.startSpan
    // (and to a caller's context by decideCaller), before a span exists, so the SDK sees only the
    // roots and parents that were kept.
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_LENGTH },
    spanProcessors: [
      endpoint !== undefined
        ? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }))
        : new SimpleSpanProcessor(new ConsoleSpanExporter()),
    ],
  });
  const metricReader = new PeriodicExportingMetricReader({
    exporter:
      endpoint !== undefined ? new OTLPMetricExporter({ url: `${endpoint}/v1/metrics` }) : new ConsoleMetricExporter(),
    exportIntervalMillis: config.metricsIntervalMs,
    exportTimeoutMillis: Math.min(30_000, config.metricsIntervalMs),
    metricProducers: [histograms],
  });
  const loggerProvider = new LoggerProvider({
    resource,
    logRecordLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_LENGTH },
    processors: [
      endpoint !== undefined
        ? new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${endpoint}/v1/logs` }) })
        : new SimpleLogRecordProcessor({ exporter: new ConsoleLogRecordExporter() }),
    ],
  });
  const loggers = new Map<string, OtelLogger>();
  return {
    metricReader,
    tracer: (name: string) => tracerProvider.getTracer(name),
    emitLog(source: string, fields: Record<string, unknown>) {
      const record = toLogRecord(fields);
      let logger = loggers.get(source);
      if (logger === undefined) loggers.set(source, (logger = loggerProvider.getLogger(source)));
      logger.emit(record);
    },
    shutdown: () => Promise.allSettled([tracerProvider.shutdown(), loggerProvider.shutdown()]),
  };
}
