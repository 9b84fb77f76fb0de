import type { Logger } from 'pino';
import type { HealthChecks } from '../host/health/health-checks.js';
import type { RequestTracer } from '../host/http/request-trace.js';
import { categoryLogger } from '../host/logging.js';
import { recordHealth } from '../adapters/otel/health-telemetry.js';
import { httpRequestTracer } from '../adapters/otel/http-telemetry.js';
import { Sources } from '../adapters/otel/source-names.js';
import type { Telemetry } from '../adapters/otel/telemetry.js';
import { createTelemetry } from '../adapters/otel/telemetry-sdk.js';
import type { HostConfig } from '../host/config/host-config.js';
import { createEdgeIdentity } from '../host/edge/edge-identity.js';
import type { TelemetryConfig } from '../adapters/otel/telemetry-config.js';

/** The SDK from `Telemetry:*`, and the host-level sources (HTTP, health) wired to it. */
export function wireOpenTelemetry(
  config: HostConfig & { telemetry: TelemetryConfig },
  instanceId: string,
  health: HealthChecks,
  log: Logger,
): { telemetry: Telemetry; recordsLogs: boolean; requestTracer: RequestTracer | undefined; log(line: string): void } {
  const telemetry = createTelemetry(config.telemetry, { instanceId, log: categoryLogger(log, config, 'Telemetry') });
  const http = telemetry.source(Sources.http);
  const healthSource = telemetry.source(Sources.health);
  if (healthSource) recordHealth(healthSource, health);
  const edge = createEdgeIdentity(config.http);
  return {
    telemetry,
    recordsLogs: telemetry.recordsLogs,
    requestTracer: http ? httpRequestTracer(http, (req) => edge.peerTrusted(req)) : undefined,
    log: (line) => telemetry.log(line),
  };
}
