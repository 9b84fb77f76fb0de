import { app, type HttpHandler } from '@azure/functions';
import { externalApiCheck, httpDependency } from '../../../src/host/health/external-api-check.js';
import { HealthChecks } from '../../../src/host/health/health-checks.js';
import { parseConnectionString } from '../../../src/wire/webpubsub/connection-string.js';
import { readWebPubSubSettings } from '../settings/web-pubsub-settings.js';

/** Each probe's budget: well inside the platform's own health probe timeout. */
const TIMEOUT_MS = 5000;

/**
 * `GET /api/health`: the function app's readiness, as the hub answers `/health/ready`. Its
 * settings are required (503 Unhealthy without them); the Web PubSub service it targets is the
 * `external-api` check: unreachable, it is Degraded and the answer stays 200 (negotiate still
 * issues URLs; subscribe and the Event Hubs relay fail until the service returns).
 */
export const health: HttpHandler = async () => {
  const checks = new HealthChecks({ timeoutMs: TIMEOUT_MS });
  let endpoint: string | undefined;
  let problem: string | undefined;
  try {
    endpoint = parseConnectionString(readWebPubSubSettings(process.env).connectionString).endpoint;
  } catch (err) {
    problem = (err as Error).message;
  }
  checks.add({
    name: 'settings',
    tags: ['ready'],
    check: () => (problem === undefined ? { status: 'Healthy' } : { status: 'Unhealthy', description: problem }),
  });
  // The data plane's health resource (Azure Web PubSub answers it; the hub answers any status below 500).
  if (endpoint !== undefined)
    checks.add(
      externalApiCheck(
        [httpDependency('web-pubsub', `${endpoint.replace(/\/+$/, '')}/api/health?api-version=2024-01-01`)],
        TIMEOUT_MS,
      ),
    );
  const report = await checks.run('ready');
  return {
    status: report.status === 'Unhealthy' ? 503 : 200,
    headers: { 'cache-control': 'no-store' },
    jsonBody: report,
  };
};

app.http('health', { methods: ['GET'], authLevel: 'anonymous', route: 'health', handler: health });
