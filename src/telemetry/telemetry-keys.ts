import { isDevelopment, type KeyDefinition } from '../host/config/key-definition.js';
import * as p from '../host/config/parsers.js';
import { parseSourcePatterns } from './source-filter.js';

/**
 * OpenTelemetry: one OTLP/HTTP (protobuf) endpoint for traces, metrics and logs. The standard
 * `OTEL_*` variables stand in for the keys here (aliases); the exporters read the rest of them
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*` …) themselves.
 */
export const TELEMETRY_KEYS: readonly KeyDefinition[] = [
  // the collector's base URL; `/v1/traces`, `/v1/metrics`, `/v1/logs` are appended. Unset: telemetry off
  { key: 'Telemetry:Otlp:Endpoint', parse: p.url(['http', 'https']), envAliases: ['OTEL_EXPORTER_OTLP_ENDPOINT'] },
  // comma separated source names; `*` at the end matches any rest (`TelemetryHub.Ingestion.*`)
  { key: 'Telemetry:Sources', parse: parseSourcePatterns, default: () => ['TelemetryHub.*'] },
  // share of new traces kept (a trace continued from a caller keeps the caller's decision)
  { key: 'Telemetry:SampleRatio', parse: p.num(0, 1), default: () => 1, envAliases: ['OTEL_TRACES_SAMPLER_ARG'] },
  // Development only: print spans, metrics and log records on stdout (no collector needed)
  { key: 'Telemetry:Console', parse: p.bool, default: () => false, check: (value, ctx) => (value === true && !isDevelopment(ctx) ? 'only in Development' : undefined) },
  // ms between metric exports
  { key: 'Telemetry:Metrics:ExportIntervalMs', parse: p.int(100, 3_600_000), default: () => 60_000, envAliases: ['OTEL_METRIC_EXPORT_INTERVAL'] },
  { key: 'Telemetry:ServiceName', parse: p.str(), default: () => 'telemetry-hub', envAliases: ['OTEL_SERVICE_NAME'] },
];

/** The resolved `Telemetry:*` keys. */
export interface TelemetryConfig {
  readonly otlpEndpoint: string | undefined;
  readonly sources: readonly string[];
  readonly sampleRatio: number;
  readonly console: boolean;
  readonly metricsIntervalMs: number;
  readonly serviceName: string;
}

export function toTelemetryConfig(v: <T>(key: string) => T): TelemetryConfig {
  return {
    otlpEndpoint: v<string | undefined>('Telemetry:Otlp:Endpoint')?.replace(/\/+$/, ''),
    sources: v('Telemetry:Sources'),
    sampleRatio: v('Telemetry:SampleRatio'),
    console: v('Telemetry:Console'),
    metricsIntervalMs: v('Telemetry:Metrics:ExportIntervalMs'),
    serviceName: v('Telemetry:ServiceName'),
  };
}
