import { createRequire } from 'node:module';
import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import { LocalHistograms } from './local-histograms.js';
import { toLogRecord } from './log-record.js';
import { SourceFilter } from './source-filter.js';
import { Telemetry } from './telemetry.js';
import type { TelemetryConfig } from './telemetry-keys.js';

export interface TelemetryIdentity {
  /** `Hub:InstanceId`: `service.instance.id`, so an operator sees which instance is saturated. */
  instanceId: string;
}

/**
 * The OpenTelemetry SDK from `Telemetry:*`: traces, metrics and logs to one OTLP/HTTP (protobuf)
 * endpoint, or to stdout with `Telemetry:Console` (Development). Neither set: `Telemetry.off`, and
 * no SDK object is created at all.
 */
export function createTelemetry(config: TelemetryConfig, identity: TelemetryIdentity): Telemetry {
  const endpoint = config.otlpEndpoint;
  if (endpoint === undefined && !config.console) return Telemetry.off;
  // Loaded only when on (~0.5 s of module loading at start on a busy machine otherwise).
  const require = createRequire(import.meta.url);
  const { OTLPLogExporter } = require('@opentelemetry/exporter-logs-otlp-proto') as typeof import('@opentelemetry/exporter-logs-otlp-proto');
  const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-proto') as typeof import('@opentelemetry/exporter-metrics-otlp-proto');
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');
  const { detectResources, envDetector, resourceFromAttributes } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { BatchLogRecordProcessor, ConsoleLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } = require('@opentelemetry/sdk-logs') as typeof import('@opentelemetry/sdk-logs');
  const { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics') as typeof import('@opentelemetry/sdk-metrics');
  const { AlwaysOnSampler, BasicTracerProvider, BatchSpanProcessor, ConsoleSpanExporter, ParentBasedSampler, SimpleSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');

  // No global context manager: on Node 20 AsyncLocalStorage hooks every promise, which halved the
  // HTTP pipeline's throughput (bench/). Trace context travels explicitly instead: on the request
  // (its RequestTrace), on the reading (`traceparent`) and on the message to the sockets.
  const resource = detectResources({ detectors: [envDetector] }).merge(
    resourceFromAttributes({ 'service.name': config.serviceName, 'service.instance.id': identity.instanceId }),
  );
  const tracerProvider = new BasicTracerProvider({
    resource,
    // Parent-based with the ratio for new traces: the ratio is applied by TelemetrySource.startSpan,
    // before a span exists, so the SDK sees only the roots that were kept.
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [
      endpoint !== undefined ? new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` })) : new SimpleSpanProcessor(new ConsoleSpanExporter()),
    ],
  });
  const histograms = new LocalHistograms();
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: endpoint !== undefined ? new OTLPMetricExporter({ url: `${endpoint}/v1/metrics` }) : new ConsoleMetricExporter(),
        exportIntervalMillis: config.metricsIntervalMs,
        exportTimeoutMillis: Math.min(30_000, config.metricsIntervalMs),
        metricProducers: [histograms],
      }),
    ],
  });
  const loggerProvider = new LoggerProvider({
    resource,
    processors: [
      endpoint !== undefined ? new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${endpoint}/v1/logs` }) }) : new SimpleLogRecordProcessor({ exporter: new ConsoleLogRecordExporter() }),
    ],
  });
  const loggers = new Map<string, OtelLogger>();

  return new Telemetry(
    {
      tracer: (name) => tracerProvider.getTracer(name),
      meter: (name) => meterProvider.getMeter(name),
      sampleRatio: config.sampleRatio,
      histogram: (scope, name, options) => histograms.create(scope, name, options),
      emitLog(source, fields) {
        const record = toLogRecord(fields);
        let logger = loggers.get(source);
        if (logger === undefined) loggers.set(source, (logger = loggerProvider.getLogger(source)));
        logger.emit(record);
      },
      async shutdown(signal) {
        const done = Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown(), loggerProvider.shutdown()]);
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
