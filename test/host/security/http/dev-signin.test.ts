// Development sign-in endpoints, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Results } from '../../../../src/host/pipeline/results.js';
import { requireRole } from '../../../../src/host/security/authorization.js';
import { defaultRateLimitPolicies } from '../../../../src/host/security/http/default-rate-limit-policies.js';
import { byClientIp } from '../../../../src/host/security/http/partition-keys.js';
import type { RateLimitPolicy } from '../../../../src/host/security/http/rate-limiting.js';
import { FixedWindowLimiter } from '../../../../src/host/security/rate-limit/fixed-window-limiter.js';
import { mapDevSignIn } from '../../../../src/host/security/http/dev-signin.js';
import { principalOf } from '../../../../src/host/security/http/security-metadata.js';
import { createJwtVerifier } from '../../../../src/host/security/jwt-bearer.js';
import { COOKIE_SECRET, JWT, securedApp, sessionCookie } from './secured-app.js';
import { serve, type Served } from './serve.js';

/** Sign-in's default limit (10/min per address) would trip over this file's own requests; the last test checks it. */
const lenient = {
  signin: {
    createLimiter: () => new FixedWindowLimiter({ permitLimit: 1000, windowMs: 60_000 }),
    partitionKey: byClientIp,
  },
};

function app(development: boolean, policies: Record<string, RateLimitPolicy> = lenient) {
  const web = securedApp({ development, rateLimits: { policies } });
  mapDevSignIn(web.routes, { development, cookieSecret: COOKIE_SECRET, jwt: JWT });
  web.routes.get('/', () => Results.text('home', 200, 'text/html'), { metadata: { page: true } });
  web.routes.get('/admin', () => Results.text('admin', 200, 'text/html'), {
    metadata: { page: true, policies: [requireRole('admin')] },
  });
  web.routes.get('/api/me', ({ http }) => principalOf(http));
  return web;
}

let served: Served;
beforeAll(async () => {
  served = await serve(app(true));
});
afterAll(() => served.close());

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
  redirect: 'manual' as const,
});

const cookieOf = (res: Response) => res.headers.getSetCookie()[0]!;

describe('development sign-in', () => {
  it('GET /auth/signin is an HTML form that keeps the return URL, escaped', async () => {
    const res = await fetch(`${served.url}/auth/signin?returnUrl=${encodeURIComponent('/x?a="><script>')}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await res.text();
    expect(html).toContain('<form method="post" action="/auth/signin">');
    expect(html).toMatch(/name="sub"[\s\S]*name="tenant"[\s\S]*name="role"/);
    expect(html).toContain('value="/x?a=&#34;&#62;&#60;script&#62;"');
    expect(html).not.toContain('<script>');
  });

  it('a page redirects to sign-in, the form signs in and returns there, the cookie then opens the page', async () => {
    const challenged = await fetch(`${served.url}/`, { redirect: 'manual' });
    expect(challenged.headers.get('location')).toBe('/auth/signin?returnUrl=%2F');

    const res = await fetch(
      `${served.url}/auth/signin`,
      form({ sub: 'alice', tenant: 'acme', role: '', returnUrl: '/admin' }),
    );
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/admin');
    const setCookie = cookieOf(res);
    expect(setCookie).toMatch(/^hub_session=[^;]+; Max-Age=28800; Path=\/; HttpOnly; SameSite=Lax$/);

    const cookie = setCookie.split(';')[0]!;
    expect((await fetch(`${served.url}/`, { headers: { cookie } })).status).toBe(200);
    expect(await (await fetch(`${served.url}/api/me`, { headers: { cookie } })).json()).toEqual({
      sub: 'alice',
      tenantId: 'acme',
      roles: [],
      scheme: 'cookie',
      expiresAt: expect.any(Number),
    });
    // Without the admin role, the admin page sends the cookie user to the access-denied page, which exists.
    const denied = await fetch(`${served.url}/admin`, { headers: { cookie }, redirect: 'manual' });
    expect(denied.headers.get('location')).toBe('/auth/denied');
    const deniedPage = await fetch(`${served.url}/auth/denied`, { headers: { cookie } });
    expect(deniedPage.status).toBe(403);
    expect(await deniedPage.text()).toContain('Access denied');
  });

  it.each(['//evil.example/', '/\\evil.example', 'https://evil.example/', 'javascript:alert(1)'])(
    'never redirects off-site (returnUrl %s → /)',
    async (returnUrl) => {
      const res = await fetch(`${served.url}/auth/signin`, form({ sub: 'a', tenant: 'acme', returnUrl }));
      expect(res.headers.get('location')).toBe('/');
    },
  );

  it('JSON sign-in answers 204 with the cookie; roles are kept', async () => {
    const res = await fetch(`${served.url}/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'root', tenant: 'acme', roles: ['admin'] }),
    });
    expect(res.status).toBe(204);
    const cookie = cookieOf(res).split(';')[0]!;
    expect((await fetch(`${served.url}/admin`, { headers: { cookie } })).status).toBe(200);
  });

  it.each([
    ['a bad tenant', 'application/json', JSON.stringify({ sub: 'a', tenant: 'no:colons' }), 400],
    ['no sub', 'application/json', JSON.stringify({ tenant: 'acme' }), 400],
    ['bad JSON', 'application/json', '{', 400],
    ['another content type', 'text/plain', 'sub=a', 415],
  ])('%s → %i problem, no cookie', async (_name, type, body, status) => {
    const res = await fetch(`${served.url}/auth/signin`, { method: 'POST', headers: { 'content-type': type }, body });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it('POST /auth/signout clears the cookie', async () => {
    const json = await fetch(`${served.url}/auth/signout`, { method: 'POST' });
    expect(json.status).toBe(204);
    expect(cookieOf(json)).toBe('hub_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
    const formOut = await fetch(`${served.url}/auth/signout`, form({}));
    expect(formOut.status).toBe(302);
    expect(formOut.headers.get('location')).toBe('/');
  });
});

describe('GET /auth/dev-token', () => {
  const verifier = createJwtVerifier(JWT);

  it('returns a bearer token for the cookie user, which the API accepts', async () => {
    const res = await fetch(`${served.url}/auth/dev-token`, {
      headers: { cookie: sessionCookie('carol', 'globex', ['admin']) },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { token: string; tenantId: string; sub: string };
    expect(body).toMatchObject({ tenantId: 'globex', sub: 'carol' });
    const verified = await verifier.verify(body.token);
    expect(verified.ok && verified.principal).toMatchObject({ sub: 'carol', tenantId: 'globex', roles: ['admin'] });
    const me = await fetch(`${served.url}/api/me`, { headers: { authorization: `Bearer ${body.token}` } });
    expect(await me.json()).toMatchObject({ sub: 'carol', scheme: 'bearer' });
  });

  it('without a cookie, speaks for dev-user in tenant demo (npm start opens on the simulator devices)', async () => {
    const body = (await (await fetch(`${served.url}/auth/dev-token`)).json()) as {
      token: string;
      tenantId: string;
      sub: string;
    };
    expect(body).toMatchObject({ tenantId: 'demo', sub: 'dev-user' });
    expect((await verifier.verify(body.token)).ok).toBe(true);
  });

  it('with a refused cookie answers 401 rather than switching to the default user', async () => {
    const res = await fetch(`${served.url}/auth/dev-token`, { headers: { cookie: 'hub_session=forged.x' } });
    expect(res.status).toBe(401);
  });
});

describe('outside Development', () => {
  it('none of the sign-in endpoints exist', async () => {
    const production = await serve(app(false), { development: false });
    try {
      for (const [method, path] of [
        ['GET', '/auth/signin'],
        ['POST', '/auth/signin'],
        ['POST', '/auth/signout'],
        ['GET', '/auth/dev-token'],
        ['GET', '/auth/denied'],
      ]) {
        const res = await fetch(production.url + path, { method });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
      // Pages answer 401 instead of redirecting to a sign-in page that does not exist.
      expect((await fetch(`${production.url}/`, { redirect: 'manual' })).status).toBe(401);
    } finally {
      await production.close();
    }
  });
});

describe('sign-in rate limit', () => {
  it('the 11th sign-in within a minute from one address is refused with 429', async () => {
    const own = await serve(app(true, defaultRateLimitPolicies({ clock: () => 1_760_000_010_000 })));
    try {
      const post = () => fetch(`${own.url}/auth/signin`, form({ sub: 'a', tenant: 'acme' }));
      for (let i = 0; i < 10; i++) expect((await post()).status).toBe(302);
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    } finally {
      await own.close();
    }
  });
});
