import type { EndpointGroup } from '../pipeline/endpoint-builder.js';
import { Results } from '../pipeline/results.js';
import type { HealthChecks } from './health-checks.js';

/** `/health/live` and `/health/ready`: 200 for Healthy or Degraded, 503 for Unhealthy; never cached. */
export function mapHealthEndpoints(routes: EndpointGroup, checks: HealthChecks): void {
  for (const tag of ['live', 'ready']) {
    routes.get(
      `/health/${tag}`,
      async () => {
        const report = await checks.run(tag);
        return Results.json(report, report.status === 'Unhealthy' ? 503 : 200, { 'cache-control': 'no-store' });
      },
      { metadata: { allowAnonymous: true, rateLimit: false } },
    );
  }
}
