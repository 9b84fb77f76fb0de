import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Endpoint } from '../../host/pipeline/endpoint.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import { Results } from '../../host/pipeline/results.js';
import { packageRoot } from '../../host/package-root.js';
import type { EnvironmentName } from '../../host/config/key-definition.js';
import { buildOpenApiDocument, type ApiGroup } from '../../host/openapi/openapi-document.js';
import { ADMIN_ROLE, requireRole } from '../../host/security/authorization.js';

/**
 * The public API's version: the major is the URI version (`/v1/…`); a minor is added for every
 * backward-compatible change (docs/http-api.md "Versioning"). `npm run api:check` diffs against the last published one.
 */
export const PUBLIC_API_VERSION = '1.4.0';

export function openApiDocument(endpoints: readonly Endpoint[], group: ApiGroup): Record<string, unknown> {
  return buildOpenApiDocument(endpoints, group, {
    title: group === 'public' ? 'Telemetry Hub API' : 'Telemetry Hub API (internal)',
    version: PUBLIC_API_VERSION,
    description:
      group === 'public'
        ? 'The customer surface of Telemetry Hub: devices and their history, orders, customers (per bounded context) and the profile. Errors are application/problem+json with a catalogued code.'
        : 'Every endpoint of the hub; those without a description are listed with their method and path only.',
    contact: { name: 'Telemetry Hub', url: 'https://telemetry-hub.dev' },
    serverUrl: '/',
  });
}

const EXPLORER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes from its scripts.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const EXPLORER_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Telemetry Hub API explorer</title>
<link rel="stylesheet" href="/openapi/explorer/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/openapi/explorer/swagger-ui-bundle.js"></script>
<script src="/openapi/explorer/init.js"></script></body></html>`;

// No inline script: the page's policy allows scripts from the hub's own files only.
const EXPLORER_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi/internal.json', dom_id: '#ui', deepLinking: true, persistAuthorization: false });`;

/**
 * Who reads the internal document and the explorer: anyone (Development), a signed-in user with role
 * `admin` (Staging: the internal surface is a map for attackers), or nobody, unmapped (Production).
 */
export type InternalApiAccess = 'anonymous' | 'admin' | 'none';

/** Development: anyone; Staging: role `admin`; Production: not served. */
export function internalApiAccess(environment: EnvironmentName): InternalApiAccess {
  return environment === 'Development' ? 'anonymous' : environment === 'Staging' ? 'admin' : 'none';
}

/**
 * `/openapi/public.json` always, to anyone; `/openapi/internal.json` and the interactive explorer
 * (Swagger UI at `/openapi/explorer`) as `internal` says. Documents are built once, on first request,
 * from the endpoints mapped by then (all of them: requests come after start).
 */
export function mapOpenApiEndpoints(
  routes: EndpointGroup,
  endpoints: readonly Endpoint[],
  options: { internal: InternalApiAccess },
): void {
  const anyone = { allowAnonymous: true };
  const cache = new Map<ApiGroup, string>();
  const serveDocument = (group: ApiGroup) => () =>
    Results.bytes(
      cache.get(group) ?? cache.set(group, JSON.stringify(openApiDocument(endpoints, group), null, 2)).get(group)!,
      {
        'content-type': 'application/json; charset=utf-8',
        // The internal document may be behind a role: never kept by a shared cache.
        'cache-control': group === 'public' ? 'no-cache' : 'private, no-cache',
      },
    );
  routes.get('/openapi/public.json', serveDocument('public'), { metadata: anyone });
  if (options.internal === 'none') return;
  const metadata = options.internal === 'anonymous' ? anyone : { policies: [requireRole(ADMIN_ROLE)] };
  routes.get('/openapi/internal.json', serveDocument('internal'), { metadata });
  // Swagger UI's two files, copied there by the build: the 12 MB package stays out of a
  // production install. Read on first request: start-up does not pay for 1.9 MB nobody may ask for.
  const dist = join(packageRoot(), 'dist', 'api-explorer');
  const load = (file: string) => () => readFileSync(join(dist, file));
  const files = new Map<string, { body: () => Buffer | string; type: string }>(
    Object.entries({
      'swagger-ui.css': { body: load('swagger-ui.css'), type: 'text/css; charset=utf-8' },
      'swagger-ui-bundle.js': { body: load('swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
      'init.js': { body: () => EXPLORER_INIT, type: 'text/javascript; charset=utf-8' },
    }),
  );
  routes.get(
    '/openapi/explorer',
    () =>
      Results.bytes(EXPLORER_PAGE, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': EXPLORER_CSP,
      }),
    {
      metadata: { ...metadata, page: true },
    },
  );
  routes.get(
    '/openapi/explorer/{file}',
    ({ http }) => {
      const file = files.get(http.routeValues.file!);
      return file
        ? Results.bytes(file.body(), { 'content-type': file.type, 'cache-control': 'private, max-age=3600' })
        : Results.status(404);
    },
    { metadata },
  );
}
