import type { HealthChecks, HealthStatus } from '../../host/health/health-checks.js';
import type { TelemetrySource } from './telemetry.js';

const STATUSES: readonly HealthStatus[] = ['Healthy', 'Degraded', 'Unhealthy'];

/**
 * `TelemetryHub.Health`: every check result a probe produced, by check and status, and each
 * check's latest status (1 healthy, 0 not), so an alert can name the failing dependency.
 */
export function recordHealth(source: TelemetrySource, health: HealthChecks): void {
  const results = new Map<string, Map<HealthStatus, number>>();
  const latest = new Map<string, HealthStatus>();
  health.observe((report) => {
    for (const { name, status } of report.checks) {
      let byStatus = results.get(name);
      // Every status at 0 from a check's first result: an alert on the increase of Unhealthy sees the first one.
      if (byStatus === undefined) results.set(name, (byStatus = new Map(STATUSES.map((s) => [s, 0]))));
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      latest.set(name, status);
    }
  });
  source.meter
    .createObservableCounter('telemetryhub.health.check.results', {
      unit: '{result}',
      description: 'Health check results, by check and status.',
    })
    .addCallback((result) => {
      for (const [name, byStatus] of results) {
        for (const [status, n] of byStatus)
          result.observe(n, { 'telemetryhub.health.check': name, 'telemetryhub.health.status': status });
      }
    });
  source.meter
    .createObservableGauge('telemetryhub.health.check.healthy', {
      unit: '1',
      description: 'Latest result of each health check: 1 healthy, 0 degraded or unhealthy.',
    })
    .addCallback((result) => {
      for (const [name, status] of latest)
        result.observe(status === 'Healthy' ? 1 : 0, { 'telemetryhub.health.check': name });
    });
}
