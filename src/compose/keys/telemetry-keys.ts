import { isDevelopment, type KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';
import type { TelemetryConfig } from '../../adapters/otel/telemetry-config.js';
import { parseSourcePatterns } from '../../adapters/otel/source-filter.js';

/**
 * OpenTelemetry: one OTLP/HTTP (protobuf) endpoint for traces, metrics and logs, and/or a
 * Prometheus scrape endpoint for the metrics. The standard
 * `OTEL_*` variables stand in for the keys here (aliases); the exporters read the rest of them
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_BSP_*` …) themselves.
 */
export const TELEMETRY_KEYS: readonly KeyDefinition[] = [
  // the collector's base URL; `/v1/traces`, `/v1/metrics`, `/v1/logs` are appended. Unset: telemetry off
  {
    key: 'Telemetry:Otlp:Endpoint',
    doc: "the collector's base URL, e.g. `https://otel-agent:4318`; `/v1/traces`, `/v1/metrics`, `/v1/logs` are appended",
    defaultDoc: 'unset (off)',
    parse: p.url(['http', 'https']),
    envAliases: ['OTEL_EXPORTER_OTLP_ENDPOINT'],
  },
  // comma separated source names; `*` at the end matches any rest (`TelemetryHub.Ingestion.*`)
  {
    key: 'Telemetry:Sources',
    doc: 'subscribed source names, comma separated: exact names (any case) or a trailing `*` (`TelemetryHub.Ingestion.*,TelemetryHub.Hub`); a source no pattern matches records nothing',
    parse: parseSourcePatterns,
    default: () => ['TelemetryHub.*'],
  },
  // share of new traces kept (a trace continued from a caller keeps the caller's decision)
  {
    key: 'Telemetry:SampleRatio',
    doc: 'share of traces the hub records: new ones, and those continued from a caller or device, whose sampled flag is ignored unless the caller is in `Http:TrustedProxies` (see Trace context (docs/observability.md)); within the hub a trace keeps the decision its first span made',
    parse: p.num(0, 1),
    default: () => 1,
    envAliases: ['OTEL_TRACES_SAMPLER_ARG'],
  },
  // Development only: print spans, metrics and log records on stdout (no collector needed)
  {
    key: 'Telemetry:Console',
    doc: 'Development only: spans, metrics and log records printed to stdout instead (no collector needed)',
    parse: p.bool,
    default: () => false,
    check: (value, ctx) => (value === true && !isDevelopment(ctx) ? 'only in Development' : undefined),
  },
  // ms between metric exports
  {
    key: 'Telemetry:Metrics:ExportIntervalMs',
    doc: 'metric export period',
    parse: p.int(100, 3_600_000),
    default: () => 60_000,
    envAliases: ['OTEL_METRIC_EXPORT_INTERVAL'],
  },
  {
    key: 'Telemetry:ServiceName',
    doc: '`service.name`; `service.instance.id` is `Hub:InstanceId`',
    parse: p.str(),
    default: () => 'telemetry-hub',
    envAliases: ['OTEL_SERVICE_NAME'],
  },
  // a Prometheus scrape endpoint (`GET /metrics`) on a listener of its own, with or without OTLP
  {
    key: 'Telemetry:Prometheus:Enabled',
    doc: 'serve every metric in Prometheus text format at `GET /metrics` on a listener of its own (with or without OTLP)',
    parse: p.bool,
    default: () => false,
  },
  // unauthenticated: loopback unless the scraper is elsewhere (then a network only it reaches)
  {
    key: 'Telemetry:Prometheus:Host',
    doc: "the listener's address. **No authentication**: bind it where only the scraper reaches",
    parse: p.str(),
    default: () => '127.0.0.1',
    envAliases: ['OTEL_EXPORTER_PROMETHEUS_HOST'],
  },
  // 0 picks a free port (logged at start)
  {
    key: 'Telemetry:Prometheus:Port',
    doc: "the listener's port; 0 picks a free one (the bound URL is logged: `prometheus metrics endpoint open`). A port in use stops start-up with exit 78 naming this key",
    parse: p.port,
    default: () => 9464,
    envAliases: ['OTEL_EXPORTER_PROMETHEUS_PORT'],
  },
];

export function toTelemetryConfig(v: <T>(key: string) => T): TelemetryConfig {
  return {
    otlpEndpoint: v<string | undefined>('Telemetry:Otlp:Endpoint')?.replace(/\/+$/, ''),
    sources: v('Telemetry:Sources'),
    sampleRatio: v('Telemetry:SampleRatio'),
    console: v('Telemetry:Console'),
    metricsIntervalMs: v('Telemetry:Metrics:ExportIntervalMs'),
    serviceName: v('Telemetry:ServiceName'),
    prometheus: {
      enabled: v('Telemetry:Prometheus:Enabled'),
      host: v('Telemetry:Prometheus:Host'),
      port: v('Telemetry:Prometheus:Port'),
    },
  };
}
