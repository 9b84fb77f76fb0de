// The token-for-session exchange (POST/DELETE /auth/session, GET /auth/token) over real HTTP: on the
// whole hub started in Production (HS256 and JWKS), plus the Secure attribute on a TLS request.
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Results } from '../../../../src/host/pipeline/results.js';
import { SESSION_COOKIE_NAME, serializeSessionCookie } from '../../../../src/host/security/cookie.js';
import { principalOf } from '../../../../src/host/security/http/security-metadata.js';
import { mapSessionExchange } from '../../../../src/host/security/http/session-exchange.js';
import { signUserToken } from '../../../../src/host/security/jwt-bearer.js';
import { connectTelemetry, startApp, type RunningApp } from '../../../support/app-harness.js';
import { COOKIE_SECRET, JWT, securedApp, tokenFor } from './secured-app.js';
import { serve } from './serve.js';

const SECRET = 'production-secret-'.padEnd(48, 'x');
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'telemetry-hub';
const PRODUCTION = [
  '--environment=Production',
  `--Hub:AccessKey=${'k'.repeat(40)}`,
  `--Auth:Jwt:Issuer=${ISSUER}`,
  `--Auth:Jwt:Audience=${AUDIENCE}`,
];

function userToken(
  options: {
    sub?: string;
    tenantId?: string;
    roles?: string[];
    expiresInSeconds?: number;
    secret?: string;
    audience?: string;
    now?: number;
  } = {},
) {
  return signUserToken({
    sub: options.sub ?? 'alice',
    tenantId: options.tenantId ?? 'acme',
    roles: options.roles ?? [],
    secret: options.secret ?? SECRET,
    issuer: ISSUER,
    audience: options.audience ?? AUDIENCE,
    expiresInSeconds: options.expiresInSeconds ?? 3600,
    ...(options.now !== undefined ? { now: options.now } : {}),
  });
}

/** `name=value` of a Set-Cookie header, and its attributes (lower-case names). */
function parseSetCookie(header: string) {
  const [pair, ...attrs] = header.split(';').map((s) => s.trim());
  const attributes = new Map(
    attrs.map((a) => [a.split('=')[0]!.toLowerCase(), a.includes('=') ? a.slice(a.indexOf('=') + 1) : true] as const),
  );
  return { pair: pair!, attributes };
}

let nextAddress = 1;
/**
 * POST /auth/session from a fresh loopback address (127.0.1.N): the sign-in limit (10 per minute per
 * address) is tested on its own below, and must not trip over this file's many sign-ins.
 */
function postSession(url: string, headers: Record<string, string> = {}, body?: string): Promise<Response> {
  const localAddress = `127.0.1.${nextAddress++}`;
  return new Promise((resolve, reject) => {
    const req = request(`${url}/auth/session`, { method: 'POST', headers, localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!, res.rawHeaders[i + 1]!]);
        const status = res.statusCode!;
        resolve(new Response(status === 204 ? null : Buffer.concat(chunks), { status, headers: pairs }));
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function expectProblem(res: Response, status: number, wwwAuthenticate: string | RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.headers.get('www-authenticate')).toMatch(wwwAuthenticate);
  expect(res.headers.getSetCookie()).toEqual([]);
  const body = (await res.json()) as { status: number; code: string };
  expect(body.status).toBe(status);
  return body;
}

describe('session exchange on the hub in Production (HS256)', () => {
  let hub: RunningApp;
  beforeAll(async () => {
    hub = await startApp([...PRODUCTION, `--Auth:Jwt:Secret=${SECRET}`]);
  });
  afterAll(() => hub?.stop());

  const createSession = (token: string) => postSession(hub.url, { authorization: `Bearer ${token}` });

  /** POST /auth/session, checked; returns the `Cookie` header value and the session's expiry (epoch ms, from Max-Age). */
  async function signIn(token: string) {
    const before = Date.now();
    const res = await createSession(token);
    expect(res.status).toBe(204);
    const { pair, attributes } = parseSetCookie(res.headers.getSetCookie()[0]!);
    return {
      cookie: pair,
      maxAge: Number(attributes.get('max-age')),
      expiresBy: before + Number(attributes.get('max-age')) * 1000 + 1000,
      attributes,
      res,
    };
  }

  it('POST /auth/session with a valid token → 204 and the signed HttpOnly SameSite=Lax session cookie, not Secure over http', async () => {
    const { cookie, maxAge, attributes, res } = await signIn(await userToken({ expiresInSeconds: 3600 }));
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE_NAME}=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`));
    expect(attributes.get('httponly')).toBe(true);
    expect(attributes.get('samesite')).toBe('Lax');
    expect(attributes.get('path')).toBe('/');
    expect(attributes.has('secure')).toBe(false);
    expect(attributes.has('domain')).toBe(false);
    // Never longer than the token (iat is whole seconds, so a second or so less).
    expect(maxAge).toBeLessThanOrEqual(3600);
    expect(maxAge).toBeGreaterThan(3590);
  });

  it('the session ends with the token: a 5-minute token gives at most 300 s, a day-long one the 8-hour cap', async () => {
    expect((await signIn(await userToken({ expiresInSeconds: 300 }))).maxAge).toBeLessThanOrEqual(300);
    expect((await signIn(await userToken({ expiresInSeconds: 86_400 }))).maxAge).toBe(8 * 3600);
  });

  it.each([
    ['no Authorization header', {}, /^Bearer$/],
    ['a malformed token', { authorization: 'Bearer abc.def.ghi' }, /^Bearer error="invalid_token"$/],
    ['a non-bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }, /^Bearer$/],
  ])('%s → 401 problem with WWW-Authenticate, no cookie', async (_name, headers, challenge) => {
    await expectProblem(await postSession(hub.url, headers), 401, challenge);
  });

  it.each([
    ['signed with another secret', () => userToken({ secret: 'another-secret-'.padEnd(40, 'y') })],
    ['for another audience', () => userToken({ audience: 'someone-else' })],
    ['expired', () => userToken({ expiresInSeconds: 60, now: Date.now() - 10 * 60_000 })],
  ])('a token %s → 401 invalid_token, no cookie', async (_name, make) => {
    const body = await expectProblem(await createSession(await make()), 401, /^Bearer error="invalid_token"$/);
    expect(body.code).toBe('HUB_ERR_AUTH_INVALID_TOKEN');
  });

  it('a session cookie alone cannot create or extend a session (only a bearer token can)', async () => {
    const { cookie } = await signIn(await userToken());
    await expectProblem(await postSession(hub.url, { cookie }), 401, /^Bearer$/);
  });

  it('a form post (what a cross-site page can send) cannot create a session', async () => {
    const token = await userToken();
    const body = new URLSearchParams({ access_token: token, authorization: `Bearer ${token}` }).toString();
    const res = await postSession(hub.url, { 'content-type': 'application/x-www-form-urlencoded' }, body);
    await expectProblem(res, 401, /^Bearer$/);
  });

  it('GET /auth/token with the cookie → a short-lived token the API and socket.io accept, expiring no later than the session', async () => {
    const { cookie, expiresBy } = await signIn(
      await userToken({ sub: 'bob', tenantId: 'acme', roles: ['admin'], expiresInSeconds: 3600 }),
    );
    const res = await fetch(`${hub.url}/auth/token`, { headers: { cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { token: string; tenantId: string; sub: string; expiresAt: number };
    expect(body).toMatchObject({ tenantId: 'acme', sub: 'bob' });
    const claims = decodeJwt(body.token);
    expect(claims).toMatchObject({ sub: 'bob', tenant_id: 'acme', roles: ['admin'], iss: ISSUER, aud: AUDIENCE });
    expect(claims.exp! * 1000).toBe(body.expiresAt);
    // Short-lived: 15 minutes, well inside the hour-long session.
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(body.expiresAt).toBeLessThanOrEqual(expiresBy);

    const devices = await fetch(`${hub.url}/v1/devices`, { headers: { authorization: `Bearer ${body.token}` } });
    expect(devices.status).toBe(200);
    const socket = await connectTelemetry(hub.url, body.token);
    socket.close();
  });

  it('a token minted near the end of a session expires with it', async () => {
    const { cookie, maxAge, expiresBy } = await signIn(await userToken({ expiresInSeconds: 120 }));
    const body = (await (await fetch(`${hub.url}/auth/token`, { headers: { cookie } })).json()) as {
      token: string;
      expiresAt: number;
    };
    expect(body.expiresAt).toBeLessThanOrEqual(expiresBy);
    const claims = decodeJwt(body.token);
    expect(maxAge).toBeLessThanOrEqual(120);
    expect(claims.exp! - claims.iat!).toBeLessThanOrEqual(maxAge);
    expect((await fetch(`${hub.url}/v1/devices`, { headers: { authorization: `Bearer ${body.token}` } })).status).toBe(
      200,
    );
  });

  it('a tampered, forged or missing session cookie → 401 problem at /auth/token', async () => {
    const { cookie } = await signIn(await userToken({ sub: 'carol' }));
    const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
    const [payload, mac] = value.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const otherPayload = Buffer.from(JSON.stringify({ ...claims, roles: ['admin'] })).toString('base64url');
    const forged = serializeSessionCookie(
      { sub: 'carol', tenantId: 'acme', roles: [], scheme: 'cookie' },
      'not-this-hubs-secret-'.padEnd(40, 'z'),
      {
        maxAgeSeconds: 600,
        secure: false,
      },
    ).split(';')[0]!;
    const flip = (s: string) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.at(-1);
    for (const bad of [
      `${name}=${otherPayload}.${mac}`,
      `${name}=${payload}.${flip(mac)}`,
      forged,
      `${name}=garbage`,
    ]) {
      await expectProblem(await fetch(`${hub.url}/auth/token`, { headers: { cookie: bad } }), 401, /^Bearer/);
      // Nor does the API take it.
      expect((await fetch(`${hub.url}/v1/devices`, { headers: { cookie: bad } })).status).toBe(401);
    }
    await expectProblem(await fetch(`${hub.url}/auth/token`), 401, /^Bearer$/);
  });

  it('/auth/token serves cookie sessions only: a bearer token cannot be swapped for a fresh one', async () => {
    const token = await userToken();
    await expectProblem(
      await fetch(`${hub.url}/auth/token`, { headers: { authorization: `Bearer ${token}` } }),
      401,
      /^Bearer$/,
    );
  });

  it('DELETE /auth/session → 204 and clears the cookie', async () => {
    const { cookie } = await signIn(await userToken());
    const res = await fetch(`${hub.url}/auth/session`, { method: 'DELETE', headers: { cookie } });
    expect(res.status).toBe(204);
    expect(res.headers.getSetCookie()).toEqual([`${SESSION_COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax`]);
    // Without a session (the browser dropped the cookie), no token.
    await expectProblem(await fetch(`${hub.url}/auth/token`), 401, /^Bearer$/);
    // Signing out twice is harmless.
    expect((await fetch(`${hub.url}/auth/session`, { method: 'DELETE' })).status).toBe(204);
  });

  it('the development sign-in stays Development-only', async () => {
    for (const [method, path] of [
      ['GET', '/auth/signin'],
      ['POST', '/auth/signin'],
      ['GET', '/auth/dev-token'],
    ] as const) {
      expect((await fetch(hub.url + path, { method })).status, `${method} ${path}`).toBe(404);
    }
  });
});

describe('session rate limit', () => {
  it('the 31st POST /auth/session within a minute from one address → 429 (the `session` policy)', async () => {
    const hub = await startApp([...PRODUCTION, `--Auth:Jwt:Secret=${SECRET}`]);
    try {
      const bad = { method: 'POST', headers: { authorization: 'Bearer not.a.token' } };
      for (let i = 0; i < 30; i++) expect((await fetch(`${hub.url}/auth/session`, bad)).status).toBe(401);
      const refused = await fetch(`${hub.url}/auth/session`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await userToken()}` },
      });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.headers.getSetCookie()).toEqual([]);
      expect(await refused.json()).toMatchObject({ policy: 'session' });
    } finally {
      await hub.stop();
    }
  });
});

describe('session exchange on a hub that verifies tokens with a JWKS', () => {
  let hub: RunningApp;
  let jwks: Server;
  let privateKey: CryptoKey;

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    privateKey = pair.privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    jwks = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const { port } = jwks.address() as AddressInfo;
    hub = await startApp([...PRODUCTION, `--Auth:Jwt:JwksUri=http://127.0.0.1:${port}/jwks`]);
  });
  afterAll(async () => {
    await hub?.stop();
    await new Promise((resolve) => jwks?.close(resolve));
  });

  const es256Token = (expiresInSeconds: number) => {
    const iat = Math.floor(Date.now() / 1000);
    return new SignJWT({ tenant_id: 'acme', roles: [] })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
      .setSubject('dana')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(iat)
      .setExpirationTime(iat + expiresInSeconds)
      .sign(privateKey);
  };

  it('creates a session from the token, but has no /auth/token (404): the dashboard keeps the token it signed in with', async () => {
    const token = await es256Token(600);
    const res = await fetch(`${hub.url}/auth/session`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(204);
    const { pair: cookie, attributes } = parseSetCookie(res.headers.getSetCookie()[0]!);
    expect(Number(attributes.get('max-age'))).toBeLessThanOrEqual(600);
    // The cookie (signed with a secret derived from Hub:AccessKey) is this hub's session …
    expect((await fetch(`${hub.url}/v1/devices`, { headers: { cookie } })).status).toBe(200);
    // … but the hub holds no key to sign bearer tokens with.
    expect((await fetch(`${hub.url}/auth/token`, { headers: { cookie } })).status).toBe(404);
    expect((await fetch(`${hub.url}/v1/devices`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${hub.url}/auth/session`, { method: 'DELETE', headers: { cookie } })).status).toBe(204);
  });

  it('an HS256 token (even one signed with the access key) does not create a session', async () => {
    const hs = await userToken({ secret: 'k'.repeat(40) });
    await expectProblem(
      await fetch(`${hub.url}/auth/session`, { method: 'POST', headers: { authorization: `Bearer ${hs}` } }),
      401,
      /invalid_token/,
    );
  });
});

describe('Secure attribute', () => {
  it('is set when the request came over TLS, on both creating and clearing the cookie', async () => {
    const web = securedApp({
      development: false,
      // What node's https server sets on its sockets; the hub reads it, not forwarded headers.
      first: async (ctx, next) => {
        const socket = ctx.raw.socket as { encrypted?: boolean };
        if (ctx.headers['x-test-tls'] === '1') socket.encrypted = true;
        try {
          await next(ctx);
        } finally {
          delete socket.encrypted;
        }
      },
      rateLimits: {
        policies: {
          session: { createLimiter: () => ({ tryAcquire: () => ({ ok: true }) }) as never, partitionKey: () => 'all' },
        },
      },
    });
    mapSessionExchange(web.routes, { cookieSecret: COOKIE_SECRET, mint: JWT });
    web.routes.get('/me', ({ http }) => Results.json(principalOf(http)));
    const served = await serve(web, { development: false });
    try {
      const token = await tokenFor('erin', 'acme');
      const tls = await fetch(`${served.url}/auth/session`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-test-tls': '1' },
      });
      expect(tls.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
      const plain = await fetch(`${served.url}/auth/session`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(plain.headers.getSetCookie()[0]).not.toMatch(/Secure/);
      const cleared = await fetch(`${served.url}/auth/session`, { method: 'DELETE', headers: { 'x-test-tls': '1' } });
      expect(cleared.headers.getSetCookie()[0]).toBe(
        `${SESSION_COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure`,
      );
      const cookie = parseSetCookie(plain.headers.getSetCookie()[0]!).pair;
      expect(await (await fetch(`${served.url}/me`, { headers: { cookie } })).json()).toMatchObject({
        sub: 'erin',
        tenantId: 'acme',
        scheme: 'cookie',
      });
    } finally {
      await served.close();
    }
  });
});
