import type { HealthChecks } from '../host/health/health-checks.js';
import type { RequestTracer } from '../host/http/request-trace.js';
import { recordHealth } from '../telemetry/health-telemetry.js';
import { httpRequestTracer } from '../telemetry/http-telemetry.js';
import { Sources } from '../telemetry/source-names.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { createTelemetry } from '../telemetry/telemetry-sdk.js';
import type { AppConfig } from './app-config.js';

/** The SDK from `Telemetry:*`, and the host-level sources (HTTP, health) wired to it. */
export function wireOpenTelemetry(
  config: AppConfig,
  health: HealthChecks,
): { telemetry: Telemetry; recordsLogs: boolean; requestTracer: RequestTracer | undefined; log(line: string): void } {
  const telemetry = createTelemetry(config.telemetry, { instanceId: config.hub.instanceId });
  const http = telemetry.source(Sources.http);
  const healthSource = telemetry.source(Sources.health);
  if (healthSource) recordHealth(healthSource, health);
  return {
    telemetry,
    recordsLogs: telemetry.recordsLogs,
    requestTracer: http ? httpRequestTracer(http) : undefined,
    log: (line) => telemetry.log(line),
  };
}
