// Endpoint-aware CORS (spec "What the service does" 6, "CORS preflight"): the policy comes from the
// endpoint routing selected — a named one, the default, or none — over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorsPolicies } from '../../../../src/host/security/cors-policies.js';
import { WebApplication } from '../../../../src/host/pipeline/web-application.js';
import { bearer, securedApp } from './secured-app.js';
import { serve, type Served } from './serve.js';

const SHOP = 'http://shop.example.test';
const PARTNER = 'https://partner.example.test';
let served: Served;
const calls: string[] = [];

const policies = () =>
  new CorsPolicies({
    default: { allowedOrigins: [SHOP] },
    named: {
      partners: {
        allowedOrigins: [PARTNER],
        allowedMethods: ['GET', 'POST'],
        allowCredentials: true,
        maxAgeSeconds: 60,
        exposedHeaders: ['etag'],
      },
    },
  });

beforeAll(async () => {
  const web = securedApp({ corsPolicies: policies() });
  const anonymous = { allowAnonymous: true };
  web.routes.post('/api/partner/orders', () => (calls.push('partner'), { ok: true }), {
    metadata: { ...anonymous, cors: 'partners' },
  });
  web.routes.get(
    '/api/partner/fails',
    () => {
      throw new Error('boom');
    },
    { metadata: { ...anonymous, cors: 'partners' } },
  );
  web.routes.put('/api/shop/orders/{id}', () => (calls.push('shop'), { ok: true }), { metadata: anonymous });
  web.routes.put('/internal/jobs/{id}', () => (calls.push('internal'), { ok: true }), {
    metadata: { ...anonymous, cors: false },
  });
  served = await serve(web);
});
afterAll(() => served.close());

function ACCESS_CONTROL(res: Response): string[] {
  const names: string[] = [];
  res.headers.forEach((_value, name) => void (name.startsWith('access-control-') && names.push(name)));
  return names;
}

function preflight(path: string, origin: string, method: string, headers = 'content-type') {
  return fetch(`${served.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

describe('a route with a named policy', () => {
  it('answers its preflight with that policy, not the default', async () => {
    calls.length = 0;
    const res = await preflight('/api/partner/orders', PARTNER, 'POST');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    expect(res.headers.get('access-control-max-age')).toBe('60');
    expect(calls).toEqual([]);
    // The default policy's origin is not the partner policy's.
    const shop = await preflight('/api/partner/orders', SHOP, 'POST');
    expect(shop.status).toBe(204);
    expect(ACCESS_CONTROL(shop)).toEqual([]);
  });

  it('puts that policy on actual responses, error problems after re-execution included', async () => {
    const ok = await fetch(`${served.url}/api/partner/orders`, { method: 'POST', headers: { origin: PARTNER } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(ok.headers.get('access-control-expose-headers')).toBe('etag');
    const failed = await fetch(`${served.url}/api/partner/fails`, { headers: { origin: PARTNER } });
    expect(failed.status).toBe(500);
    expect(failed.headers.get('content-type')).toMatch(/problem\+json/);
    expect(failed.headers.get('access-control-allow-origin')).toBe(PARTNER);
    expect(failed.headers.get('access-control-allow-credentials')).toBe('true');
  });
});

describe('a route with the default policy', () => {
  it('answers preflights and actual requests with the default', async () => {
    const res = await preflight('/api/shop/orders/7', SHOP, 'PUT', 'authorization, content-type');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const partner = await preflight('/api/shop/orders/7', PARTNER, 'PUT');
    expect(ACCESS_CONTROL(partner)).toEqual([]);
    const actual = await fetch(`${served.url}/api/shop/orders/7`, {
      method: 'PUT',
      headers: { origin: SHOP, 'content-type': 'application/json', ...(await bearer('a', 'acme')) },
      body: '{}',
    });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(actual.headers.get('vary')).toBe('Origin');
  });
});

describe('a route without a policy (cors: false)', () => {
  it('refuses the preflight: 405 problem, no CORS headers, the handler never runs', async () => {
    calls.length = 0;
    const res = await preflight('/internal/jobs/1', SHOP, 'PUT');
    expect(res.status).toBe(405);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
    expect(res.headers.get('allow')).toBe('PUT');
    expect(ACCESS_CONTROL(res)).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('answers actual requests without any CORS header', async () => {
    const res = await fetch(`${served.url}/internal/jobs/1`, { method: 'PUT', headers: { origin: SHOP } });
    expect(res.status).toBe(200);
    expect(ACCESS_CONTROL(res)).toEqual([]);
    expect(res.headers.get('vary')).toBeNull();
  });
});

describe('an unmatched route', () => {
  it('refuses a preflight with 404: there is no endpoint to ask about', async () => {
    const res = await preflight('/nowhere', SHOP, 'GET');
    expect(res.status).toBe(404);
    expect(ACCESS_CONTROL(res)).toEqual([]);
  });

  it('gives the 404 problem the default policy, so an allowed page can read it', async () => {
    const res = await fetch(`${served.url}/nowhere`, { headers: { origin: SHOP } });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBe(SHOP);
  });
});

describe('registration', () => {
  it('an endpoint naming an unregistered policy is named at start-up', () => {
    const web = new WebApplication({ development: false });
    web.routes.get('/x', () => null, { metadata: { cors: 'partner' } });
    expect(() => policies().check(web.endpoints)).toThrow(/unknown CORS policy "partner" on GET,HEAD \/x/);
  });

  it('a policy name is registered once', () => {
    expect(() => policies().add('partners', { allowedOrigins: [] })).toThrow(/taken/);
  });
});
