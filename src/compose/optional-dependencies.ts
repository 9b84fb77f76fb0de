import { httpDependency, type OptionalDependency } from '../host/health/external-api-check.js';
import type { TelemetryConfig } from '../adapters/otel/telemetry-config.js';

/**
 * What a process (hub, worker, gateway) serves without, for its `external-api` check: today the
 * OTLP collector when `Telemetry:Otlp:Endpoint` is set (spans and metrics wait in the exporters'
 * buffers, and are dropped when those fill, while it is away).
 */
export function optionalDependencies(telemetry: Pick<TelemetryConfig, 'otlpEndpoint'>): OptionalDependency[] {
  return telemetry.otlpEndpoint === undefined ? [] : [httpDependency('otlp', `${telemetry.otlpEndpoint}/v1/traces`)];
}
