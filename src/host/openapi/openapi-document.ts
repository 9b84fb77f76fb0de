import type { Endpoint } from '../pipeline/endpoint.js';
import { apiOf, type ApiDescription, type JsonSchema } from './api-description.js';

export type ApiGroup = 'public' | 'internal';

export interface DocumentInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
  readonly contact: { readonly name: string; readonly url: string };
  /** e.g. `/` (same origin) or `https://telemetry.example.com`. */
  readonly serverUrl: string;
}

/** RFC 9457 problem details, as every error answer carries them. */
const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'instance', 'traceId', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    instance: { type: 'string' },
    traceId: { type: 'string' },
    code: { type: 'string', description: 'HUB_ERR_<AREA>_<WHAT>, catalogued in docs/errors.md' },
    errors: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'each value that did not bind, by name',
    },
  },
};

/**
 * One OpenAPI 3.1 document per endpoint group, generated from the endpoints' descriptions: `public`
 * holds the customer surface; `internal` holds every endpoint, the undescribed ones (health, the
 * management API, socket.io, …) with their method and path only. Deterministic: sorted by path and
 * method, so a diff shows only real changes.
 */
export function buildOpenApiDocument(
  endpoints: readonly Endpoint[],
  group: ApiGroup,
  info: DocumentInfo,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints) {
    if (endpoint.metadata.builtIn === true || endpoint.methods === null) continue;
    const api = apiOf(endpoint);
    if (group === 'public' && api?.group !== 'public') continue;
    const path = openApiPath(endpoint.template.text);
    const item = (paths[path] ??= {});
    for (const method of endpoint.methods) {
      if (method === 'HEAD' && endpoint.methods.includes('GET')) continue;
      item[method.toLowerCase()] = api ? operation(api) : undescribed(endpoint, method);
    }
  }
  const sorted = Object.fromEntries(
    Object.keys(paths)
      .sort()
      .map((p) => [
        p,
        Object.fromEntries(
          Object.keys(paths[p]!)
            .sort()
            .map((m) => [m, paths[p]![m]]),
        ),
      ]),
  );
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description, contact: info.contact },
    servers: [{ url: info.serverUrl }],
    tags: [
      ...new Set(
        Object.values(sorted).flatMap((item) => Object.values(item).flatMap((op) => (op as { tags: string[] }).tags)),
      ),
    ]
      .sort()
      .map((name) => ({ name, description: `${name} operations` })),
    paths: sorted,
    components: {
      schemas: { Problem: PROBLEM_SCHEMA },
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'a user token: claims sub, tenant_id, roles',
        },
      },
    },
  };
}

/** `/api/orders/{orderId:regex(…)}` → `/api/orders/{orderId}`; a catch-all `{*rest}` → `{rest}`. */
export function openApiPath(template: string): string {
  return template.replace(/\{\*?([A-Za-z_][A-Za-z0-9_]*)\??(?::[^}]*)?\}/g, '{$1}');
}

function operation(api: ApiDescription): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: api.operationId,
    summary: api.summary,
    description: api.description,
    tags: [...api.tags],
  };
  if (api.parameters?.length) {
    op.parameters = api.parameters.map((p) => ({
      name: p.name,
      in: p.in,
      required: p.in === 'path' ? true : (p.required ?? false),
      ...(p.description ? { description: p.description } : {}),
      schema: p.schema,
    }));
  }
  if (api.body) {
    op.requestBody = {
      required: true,
      description: api.body.description,
      content: { [api.body.contentType]: { schema: api.body.schema } },
    };
  }
  op.responses = Object.fromEntries(
    Object.entries(api.responses).map(([status, r]) => {
      const isProblem = Number(status) >= 400;
      const contentType = r.contentType ?? (isProblem ? 'application/problem+json' : 'application/json');
      const schema = r.schema ?? (isProblem ? { $ref: '#/components/schemas/Problem' } : undefined);
      return [
        status,
        {
          description: r.description,
          ...(r.headers ? { headers: r.headers } : {}),
          ...(schema ? { content: { [contentType]: { schema } } } : {}),
        },
      ];
    }),
  );
  op.security = api.authenticated === false ? [] : [{ bearer: [] }];
  if (api.deprecated) op.deprecated = true;
  return op;
}

function undescribed(endpoint: Endpoint, method: string): Record<string, unknown> {
  const params = endpoint.template.segments.flatMap((s) => (s.kind === 'literal' ? [] : [s.name]));
  return {
    operationId: `${method.toLowerCase()}${endpoint.template.text.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: endpoint.displayName,
    description: 'Not described yet.',
    tags: ['undescribed'],
    ...(params.length
      ? { parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) }
      : {}),
    responses: { default: { description: 'see docs/http-api.md' } },
  };
}
