// Spec "Errors" rows 401 / 403 and "Authentication" 3–6, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Results } from '../../../../src/host/pipeline/results.js';
import { requireRole } from '../../../../src/host/security/authorization.js';
import { requireDeviceAccess } from '../../../../src/host/security/http/require-device-access.js';
import { principalOf } from '../../../../src/host/security/http/security-metadata.js';
import { bearer, securedApp, sessionCookie, tokenFor } from './secured-app.js';
import { serve, type Served } from './serve.js';

let served: Served;
const calls: string[] = [];

beforeAll(async () => {
  const web = securedApp();
  const r = web.routes;
  const tenantOfRoute = requireDeviceAccess((ctx) => ctx.routeValues['tenantId']);
  r.get('/api/me', ({ http }) => ({ sub: principalOf(http)!.sub }));
  r.get('/api/public', ({ http }) => ({ user: principalOf(http)?.sub ?? null }), {
    metadata: { allowAnonymous: true },
  });
  r.get(
    '/tenants/{tenantId}/devices',
    ({ http }) => {
      calls.push(`read ${http.routeValues['tenantId']}`);
      return { items: [] };
    },
    { metadata: { policies: [tenantOfRoute] } },
  );
  r.put('/tenants/{tenantId}/devices/{deviceId}', () => Results.noContent(), {
    metadata: { policies: [requireDeviceAccess((ctx) => ctx.routeValues['tenantId'], 'manage')] },
  });
  r.get('/dashboard', () => Results.text('<h1>dashboard</h1>', 200, 'text/html'), { metadata: { page: true } });
  r.get('/admin', () => Results.text('admin', 200), { metadata: { page: true, policies: [requireRole('admin')] } });
  r.get(
    '/api/boom',
    () => {
      throw new Error('boom');
    },
    { metadata: { allowAnonymous: true } },
  );
  served = await serve(web);
});
afterAll(() => served.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(served.url + path, { headers, redirect: 'manual' });

async function expectProblem(res: Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ status, code });
  return body;
}

describe('401: not authenticated, challenged by the bearer handler', () => {
  it('no credentials → 401 problem with WWW-Authenticate: Bearer', async () => {
    const res = await get('/api/me');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    const body = await expectProblem(res, 401, 'HUB_ERR_AUTH_UNAUTHENTICATED');
    expect(body['instance']).toBe('/api/me');
  });

  it.each([
    ['a token signed with another secret', async () => (await tokenFor('alice', 'acme')).replace(/.{4}$/, 'AAAA')],
    ['an expired token', () => tokenFor('alice', 'acme', [], { expiresInSeconds: 60, now: Date.now() - 3_600_000 })],
    ['garbage', async () => 'not-a-jwt'],
  ])('%s → 401 invalid_token, and the reason is not disclosed', async (_name, make) => {
    const res = await get('/api/me', { authorization: `Bearer ${await make()}` });
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const body = await expectProblem(res, 401, 'HUB_ERR_AUTH_INVALID_TOKEN');
    expect(JSON.stringify(body)).not.toMatch(/expired|signature|malformed/);
  });

  it('a bearer request to a page is answered 401, not redirected', async () => {
    const res = await get('/dashboard', { authorization: 'Bearer nope' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    await expectProblem(res, 401, 'HUB_ERR_AUTH_INVALID_TOKEN');
  });

  it('a valid token passes', async () => {
    const res = await get('/api/me', await bearer('alice', 'acme'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sub: 'alice' });
  });
});

describe('401 / redirect: not authenticated, cookie scheme', () => {
  it('a page without a session redirects to sign-in with the return URL', async () => {
    const res = await get('/dashboard?device=sim-001');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(
      `/auth/signin?returnUrl=${encodeURIComponent('/dashboard?device=sim-001')}`,
    );
  });

  it('a page with an expired session redirects to sign-in', async () => {
    const res = await get('/dashboard', { cookie: sessionCookie('alice', 'acme', [], Date.now() - 7_200_000) });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/auth\/signin\?returnUrl=/);
  });

  it('an API endpoint with an invalid session cookie answers 401, not a redirect', async () => {
    const res = await get('/api/me', { cookie: 'hub_session=forged.value' });
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    await expectProblem(res, 401, 'HUB_ERR_AUTH_UNAUTHENTICATED');
  });

  it('a valid session cookie authenticates pages and APIs', async () => {
    const cookie = sessionCookie('carol', 'acme');
    expect((await get('/dashboard', { cookie })).status).toBe(200);
    expect(await (await get('/api/me', { cookie })).json()).toEqual({ sub: 'carol' });
  });
});

describe('403: authenticated but a policy fails', () => {
  it('bearer user of another tenant → 403 problem, the handler never runs', async () => {
    calls.length = 0;
    const res = await get('/tenants/globex/devices', await bearer('alice', 'acme'));
    expect(res.headers.get('www-authenticate')).toBeNull();
    await expectProblem(res, 403, 'HUB_ERR_AUTH_FORBIDDEN');
    expect(calls).toEqual([]);
  });

  it('own tenant → 200', async () => {
    calls.length = 0;
    expect((await get('/tenants/acme/devices', await bearer('alice', 'acme'))).status).toBe(200);
    expect(calls).toEqual(['read acme']);
  });

  it('anonymous on a tenant route → 401 (challenge, not forbid)', async () => {
    await expectProblem(await get('/tenants/acme/devices'), 401, 'HUB_ERR_AUTH_UNAUTHENTICATED');
  });

  it('managing needs role admin, in the own tenant only', async () => {
    const put = async (path: string, headers: Record<string, string>) =>
      (await fetch(served.url + path, { method: 'PUT', headers })).status;
    expect(await put('/tenants/acme/devices/d1', await bearer('alice', 'acme'))).toBe(403);
    expect(await put('/tenants/acme/devices/d1', await bearer('root', 'acme', ['admin']))).toBe(204);
    expect(await put('/tenants/globex/devices/d1', await bearer('root', 'acme', ['admin']))).toBe(403);
  });

  it('a cookie user refused by a page is redirected to the access-denied page', async () => {
    const res = await get('/admin', { cookie: sessionCookie('carol', 'acme') });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/auth/denied');
  });

  it('a bearer user refused by a page gets 403', async () => {
    await expectProblem(await get('/admin', await bearer('alice', 'acme')), 403, 'HUB_ERR_AUTH_FORBIDDEN');
  });
});

describe('anonymous access and other outcomes', () => {
  it('an endpoint allowing anonymous answers without credentials', async () => {
    const res = await get('/api/public');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: null });
  });

  it('an anonymous endpoint still sees a valid user', async () => {
    expect(await (await get('/api/public', await bearer('alice', 'acme'))).json()).toEqual({ user: 'alice' });
  });

  it('an unknown path stays 404 for anonymous callers', async () => {
    await expectProblem(await get('/nowhere'), 404, 'HUB_ERR_HTTP_NOT_FOUND');
  });

  it('a wrong method on a protected path is 405 for anonymous callers too (built-in endpoint)', async () => {
    const res = await fetch(`${served.url}/api/me`, { method: 'DELETE' });
    await expectProblem(res, 405, 'HUB_ERR_HTTP_METHOD_NOT_ALLOWED');
  });

  it('a failing anonymous endpoint answers 500 after re-execution at /error, not 401', async () => {
    await expectProblem(await get('/api/boom'), 500, 'HUB_ERR_HTTP_INTERNAL');
  });
});
