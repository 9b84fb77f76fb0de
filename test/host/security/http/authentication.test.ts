// Spec "Authentication" 1–2 and "Tenant context across hops" 1–2, over real HTTP.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticationResultOf } from '../../../../src/host/security/http/authentication-result.js';
import { principalOf } from '../../../../src/host/security/http/security-metadata.js';
import { currentTenant } from '../../../../src/host/security/tenant-context.js';
import { securedApp, sessionCookie, tokenFor } from './secured-app.js';
import { serve, type Served } from './serve.js';

let served: Served;

beforeAll(async () => {
  const web = securedApp();
  const whoami = ({ http }: { http: Parameters<typeof principalOf>[0] }) => {
    const user = principalOf(http);
    return {
      user: user && { sub: user.sub, tenantId: user.tenantId, scheme: user.scheme },
      result: authenticationResultOf(http),
    };
  };
  web.routes.get('/anon', whoami, { metadata: { allowAnonymous: true } });
  web.routes.get('/api/tenant', async () => {
    const before = currentTenant();
    // Still the request's tenant after an await and inside scheduled work.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const later = await new Promise((resolve) => setImmediate(() => resolve(currentTenant())));
    return { before, later };
  });
  web.routes.get('/anon/tenant', () => ({ tenant: currentTenant() ?? null }), { metadata: { allowAnonymous: true } });
  served = await serve(web);
});
afterAll(() => served.close());

const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(served.url + path, { headers });
  return { status: res.status, body: (await res.json()) as any };
};

describe('authentication never rejects', () => {
  it.each([
    ['a bad bearer token', { authorization: 'Bearer abc.def.ghi' }, { scheme: 'bearer', failure: 'malformed' }],
    ['an empty Bearer header', { authorization: 'Bearer' }, { scheme: 'bearer', failure: 'malformed' }],
    ['a forged cookie', { cookie: 'hub_session=eyJ9.AAAA' }, { scheme: 'cookie', failure: 'invalid_cookie' }],
    ['no credentials', {}, { scheme: null }],
    [
      'a non-bearer Authorization header',
      { authorization: 'Basic dXNlcjpwYXNz' },
      { scheme: null, failure: 'unsupported_scheme' },
    ],
  ])('%s on an anonymous endpoint → 200, anonymous, reason recorded', async (_name, headers, result) => {
    const { status, body } = await get('/anon', headers as Record<string, string>);
    expect(status).toBe(200);
    expect(body).toEqual({ user: null, result });
  });

  it('sets the user from a bearer token', async () => {
    const { body } = await get('/anon', { authorization: `Bearer ${await tokenFor('alice', 'acme')}` });
    expect(body).toEqual({ user: { sub: 'alice', tenantId: 'acme', scheme: 'bearer' }, result: { scheme: 'bearer' } });
  });

  it('sets the user from the session cookie among other cookies', async () => {
    const { body } = await get('/anon', { cookie: `theme=dark; ${sessionCookie('carol', 'globex')}; x=1` });
    expect(body.user).toEqual({ sub: 'carol', tenantId: 'globex', scheme: 'cookie' });
  });

  it('a bearer token wins over a cookie of its tenant, and an invalid one does not fall back to it', async () => {
    const cookie = sessionCookie('carol', 'acme');
    const valid = await get('/anon', { cookie, authorization: `Bearer ${await tokenFor('alice', 'acme')}` });
    expect(valid.body.user.sub).toBe('alice');
    const invalid = await get('/anon', { cookie, authorization: 'Bearer bad' });
    expect(invalid.body.user).toBeNull();
    // Not even a Basic header falls back to the cookie: the Authorization header alone decides.
    const basic = await get('/anon', { cookie, authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.body.user).toBeNull();
  });

  it('refuses a request whose bearer token and session cookie name two tenants', async () => {
    const cookie = sessionCookie('carol', 'globex');
    const { body } = await get('/anon', { cookie, authorization: `Bearer ${await tokenFor('alice', 'acme')}` });
    expect(body).toEqual({ user: null, result: { scheme: 'bearer', failure: 'conflicting_credentials' } });
  });

  it('ignores access_token in the query of an ordinary request (tokens in URLs leak into logs)', async () => {
    const { body } = await get(`/anon?access_token=${await tokenFor('alice', 'acme')}`);
    expect(body).toEqual({ user: null, result: { scheme: null } });
  });

  it('accepts access_token in the query of an EventSource (SSE) request', async () => {
    const { body } = await get(`/anon?access_token=${await tokenFor('alice', 'acme')}`, {
      accept: 'text/event-stream',
    });
    expect(body.user).toEqual({ sub: 'alice', tenantId: 'acme', scheme: 'bearer' });
  });

  it('accepts access_token in the query of a WebSocket upgrade request', async () => {
    const token = await tokenFor('alice', 'acme');
    const upgrade = (path: string) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(`${served.url}${path}`, { headers: { connection: 'Upgrade', upgrade: 'websocket' } });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('upgrade', () => reject(new Error('unexpected 101')));
        req.on('error', reject);
        req.end();
      });
    const withToken = await upgrade(`/anon?access_token=${token}`);
    expect(withToken.body.user).toEqual({ sub: 'alice', tenantId: 'acme', scheme: 'bearer' });
    const refused = await upgrade('/api/tenant?access_token=bad');
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('HUB_ERR_AUTH_INVALID_TOKEN');
  });
});

describe('tenant context', () => {
  it('a handler reads the token tenant via currentTenant(), across awaits', async () => {
    const { body } = await get('/api/tenant', { authorization: `Bearer ${await tokenFor('alice', 'acme')}` });
    expect(body).toEqual({ before: 'acme', later: 'acme' });
  });

  it('concurrent requests of different tenants never see each other', async () => {
    const tenants = ['t1', 't2', 't3', 't4', 't5', 't6'];
    const results = await Promise.all(
      tenants.map(async (t) => (await get('/api/tenant', { authorization: `Bearer ${await tokenFor('u', t)}` })).body),
    );
    expect(results).toEqual(tenants.map((t) => ({ before: t, later: t })));
  });

  it('an anonymous request has no tenant', async () => {
    expect((await get('/anon/tenant')).body).toEqual({ tenant: null });
  });
});
