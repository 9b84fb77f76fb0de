import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  internalApiAccess,
  mapOpenApiEndpoints,
  type InternalApiAccess,
} from '../../../src/features/api-docs/openapi-endpoints.js';
import type { ApiDescription } from '../../../src/host/openapi/api-description.js';
import { deprecationHeaders } from '../../../src/host/openapi/deprecation-headers.js';
import { describedEndpoint, type BoundRequest } from '../../../src/host/openapi/schema-binder.js';
import { Results } from '../../../src/host/pipeline/results.js';
import type { WebApplication } from '../../../src/host/pipeline/web-application.js';
import { signUserToken } from '../../../src/host/security/jwt-bearer.js';
import { startApp, type RunningApp } from '../../support/app-harness.js';
import { testServer } from '../../host/support/test-server.js';

const THINGS: ApiDescription = {
  group: 'public',
  operationId: 'putThing',
  summary: 'Put a thing',
  description: 'Creates or replaces a thing.',
  tags: ['things'],
  authenticated: false,
  parameters: [
    { name: 'thingId', in: 'path', schema: { type: 'string', pattern: '^[a-z]+$' } },
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 10 } },
    { name: 'dryRun', in: 'query', schema: { type: 'boolean' } },
  ],
  body: {
    contentType: 'application/json',
    description: 'the thing',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'parts'],
      properties: {
        name: { type: 'string' },
        parts: { type: 'array', items: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } } },
      },
    },
  },
  responses: {
    200: { description: 'the thing', schema: { type: 'object', properties: { name: { type: 'string' } } } },
    400: { description: 'bad input' },
  },
  deprecated: {
    since: new Date('2026-01-01T00:00:00Z'),
    sunset: new Date('2027-01-01T00:00:00Z'),
    link: 'https://telemetry-hub.dev/changes/things',
  },
};

function configure(internal: InternalApiAccess) {
  return (web: WebApplication) => {
    web.useRouting();
    web.use(deprecationHeaders());
    web.routes.put<BoundRequest<{ limit?: number; dryRun?: boolean }, { name: string }>>(
      '/v1/things/{thingId}',
      ({ args }) =>
        Results.json({
          id: args.params.thingId,
          name: args.body.name,
          limit: args.query.limit ?? null,
          dryRun: args.query.dryRun ?? null,
        }),
      describedEndpoint(THINGS),
    );
    web.routes.get('/health/live', () => Results.text('ok'));
    mapOpenApiEndpoints(web.routes, web.endpoints, { internal });
  };
}

const put = (url: string, body: unknown) => ({
  method: 'PUT' as const,
  url,
  headers: { 'content-type': 'application/json' },
  payload: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('described endpoints', () => {
  const { server } = testServer(configure('anonymous'));

  it('bind path, query and body from the schema the document shows', async () => {
    const res = await server.inject(put('/v1/things/abc?limit=3&dryRun=true', { name: 'x', parts: [{ n: 1 }] }));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'abc', name: 'x', limit: 3, dryRun: true });
  });

  it('answer 400 naming every value that does not fit its schema', async () => {
    const res = await server.inject(
      put('/v1/things/ABC?limit=11&dryRun=yes', { name: 5, parts: [{ n: 'one' }, {}], extra: 1 }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Object.keys(res.json().errors).sort()).toEqual(
      ['dryRun', 'extra', 'limit', 'name', 'parts[0].n', 'parts[1].n', 'thingId'].sort(),
    );
    expect(res.json().errors.limit).toBe('must be an integer from 1 to 10');
  });

  it('name at most 50 values, however many are bad', async () => {
    const parts = Array.from({ length: 500 }, () => ({ n: 'x' }));
    const res = await server.inject(put('/v1/things/abc', { name: 'x', parts }));
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json().errors)).toHaveLength(50);
  });

  it('answer 400 for a body that is not JSON, and 415 for another content type', async () => {
    expect((await server.inject(put('/v1/things/abc', '{nope'))).json().errors).toEqual({ body: 'is not JSON' });
    const other = await server.inject({
      method: 'PUT',
      url: '/v1/things/abc',
      headers: { 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(other.statusCode).toBe(415);
  });

  it('a deprecated endpoint answers with Deprecation, Sunset and Link, errors included', async () => {
    for (const body of [{ name: 'x', parts: [] }, { nope: true }]) {
      const res = await server.inject(put('/v1/things/abc', body));
      expect(res.headers.deprecation).toBe(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
      expect(res.headers.sunset).toBe('Fri, 01 Jan 2027 00:00:00 GMT');
      expect(res.headers.link).toBe('<https://telemetry-hub.dev/changes/things>; rel="deprecation"; type="text/html"');
    }
    expect((await server.inject('/health/live')).headers.deprecation).toBeUndefined();
  });
});

describe('OpenAPI documents', () => {
  const withInternal = testServer(configure('anonymous')).server;
  const production = testServer(configure('none')).server;

  it('public.json is OpenAPI 3.1 generated from the descriptions: customer surface only', async () => {
    const doc = (await production.inject('/openapi/public.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/v1/things/{thingId}']);
    const op = doc.paths['/v1/things/{thingId}'].put;
    expect(op).toMatchObject({ operationId: 'putThing', deprecated: true, security: [] });
    expect(op.requestBody.content['application/json'].schema).toEqual(THINGS.body!.schema);
    expect(
      op.parameters.map((p: { name: string; in: string; required: boolean }) => [p.name, p.in, p.required]),
    ).toEqual([
      ['thingId', 'path', true],
      ['limit', 'query', false],
      ['dryRun', 'query', false],
    ]);
    expect(op.responses['400'].content['application/problem+json'].schema).toEqual({
      $ref: '#/components/schemas/Problem',
    });
  });

  it('internal.json lists every endpoint, undescribed ones by method and path; with the explorer', async () => {
    const doc = (await withInternal.inject('/openapi/internal.json')).json();
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/things/{thingId}', '/health/live', '/openapi/public.json']),
    );
    const page = await withInternal.inject('/openapi/explorer');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toMatch(/<script>[^<]/);
    expect((await withInternal.inject('/openapi/explorer/swagger-ui-bundle.js')).statusCode).toBe(200);
    expect((await withInternal.inject('/openapi/explorer/constructor')).statusCode).toBe(404);
  });

  it('in Production there is no internal document and no explorer', async () => {
    expect((await production.inject('/openapi/internal.json')).statusCode).toBe(404);
    expect((await production.inject('/openapi/explorer')).statusCode).toBe(404);
  });

  it('serves the internal surface to anyone in Development only, to role admin in Staging, never in Production', () => {
    expect([internalApiAccess('Development'), internalApiAccess('Staging'), internalApiAccess('Production')]).toEqual([
      'anonymous',
      'admin',
      'none',
    ]);
  });
});

describe('issue 25 item 5: the internal document and the explorer in Staging (the whole app)', () => {
  const secret = 'staging-jwt-secret-0123456789-abcdefghij';
  let hub: RunningApp;
  beforeAll(async () => {
    hub = await startApp([
      '--environment=Staging',
      '--Hub:AccessKey=staging-access-key-0123456789-abcdefghij',
      `--Auth:Jwt:Secret=${secret}`,
      '--Auth:Jwt:Issuer=https://issuer.test',
      '--Auth:Jwt:Audience=telemetry-hub',
    ]);
  });
  afterAll(() => hub?.stop());

  const token = (roles: string[]) =>
    signUserToken({
      sub: 'u1',
      tenantId: 'acme',
      roles,
      secret,
      issuer: 'https://issuer.test',
      audience: 'telemetry-hub',
      expiresInSeconds: 600,
    });
  const get = (path: string, roles?: string[]) =>
    roles === undefined
      ? fetch(`${hub.url}${path}`)
      : token(roles).then((t) => fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${t}` } }));

  it('answers 401 without a token and 403 to a user without role admin, never the document', async () => {
    for (const path of ['/openapi/internal.json', '/openapi/explorer', '/openapi/explorer/init.js']) {
      const anonymous = await get(path);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const user = await get(path, ['reader']);
      expect(user.status, path).toBe(403);
      expect(await user.text()).not.toContain('"openapi"');
    }
  });

  it('serves them to role admin; the public document stays open to anyone', async () => {
    const doc = await get('/openapi/internal.json', ['admin']);
    expect(doc.status).toBe(200);
    expect(doc.headers.get('cache-control')).toBe('private, no-cache');
    expect(Object.keys(((await doc.json()) as { paths: object }).paths)).toEqual(
      expect.arrayContaining(['/api/negotiate', '/openapi/public.json']),
    );
    expect((await get('/openapi/explorer', ['admin'])).status).toBe(200);
    expect((await get('/openapi/public.json')).status).toBe(200);
  });
});
