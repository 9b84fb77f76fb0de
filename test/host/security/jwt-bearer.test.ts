import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJwtVerifier, signUserToken } from '../../../src/host/security/jwt-bearer.js';

const SECRET = 'test-secret-that-is-long-enough-0123456789';
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'telemetry-hub';
const T0 = Date.UTC(2025, 0, 1); // issue time, epoch ms
const at = (ms: number) => () => ms;

function hsVerifier(now = T0, clockSkewSeconds?: number) {
  return createJwtVerifier({ secret: SECRET, issuer: ISSUER, audience: AUDIENCE, now: at(now), clockSkewSeconds });
}

function userToken(overrides: Partial<Parameters<typeof signUserToken>[0]> = {}) {
  return signUserToken({
    sub: 'alice',
    tenantId: 'acme',
    roles: ['admin'],
    secret: SECRET,
    issuer: ISSUER,
    audience: AUDIENCE,
    expiresInSeconds: 600,
    now: T0,
    ...overrides,
  });
}

/** A token with arbitrary claims, HS256-signed with the right secret. */
function customToken(payload: JWTPayload, secret = SECRET) {
  return new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));
}

const base = () => ({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', tenant_id: 'acme', exp: T0 / 1000 + 600 });
const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('HS256 user tokens', () => {
  it('accepts a token from signUserToken and yields its principal', async () => {
    const result = await hsVerifier().verify(await userToken());
    expect(result).toEqual({
      ok: true,
      principal: { sub: 'alice', tenantId: 'acme', roles: ['admin'], scheme: 'bearer', expiresAt: T0 + 600_000 },
    });
  });

  it('accepts a token without roles as a user with no roles', async () => {
    const result = await hsVerifier().verify(await customToken(base()));
    expect(result.ok && result.principal.roles).toEqual([]);
  });

  it('refuses an unsigned alg "none" token carrying valid claims', async () => {
    const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(base())}.`;
    expect(await hsVerifier().verify(token)).toEqual({ ok: false, reason: 'algorithm_not_allowed' });
  });

  it('refuses a token signed with another key', async () => {
    const token = await userToken({ secret: 'another-secret-that-is-long-enough-987654' });
    expect(await hsVerifier().verify(token)).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses a token whose claims were changed after signing', async () => {
    const [header, , signature] = (await userToken()).split('.');
    const forged = `${header}.${b64({ ...base(), tenant_id: 'victim' })}.${signature}`;
    expect(await hsVerifier().verify(forged)).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses a wrong issuer and a wrong audience', async () => {
    expect(await hsVerifier().verify(await userToken({ issuer: 'https://evil.test' }))).toEqual({
      ok: false,
      reason: 'invalid_issuer',
    });
    expect(await hsVerifier().verify(await userToken({ audience: 'other-api' }))).toEqual({
      ok: false,
      reason: 'invalid_audience',
    });
  });

  it('accepts an expired token within the 60 s default clock skew, refuses it after', async () => {
    const token = await userToken(); // exp = T0 + 600 s
    const exp = T0 + 600_000;
    expect((await hsVerifier(exp + 59_000).verify(token)).ok).toBe(true);
    expect(await hsVerifier(exp + 60_000).verify(token)).toEqual({ ok: false, reason: 'expired' });
  });

  it('honours a configured clock skew of 0', async () => {
    const token = await userToken();
    expect((await hsVerifier(T0 + 599_000, 0).verify(token)).ok).toBe(true);
    expect(await hsVerifier(T0 + 600_000, 0).verify(token)).toEqual({ ok: false, reason: 'expired' });
  });

  it('refuses a token not valid yet beyond the skew', async () => {
    const token = await customToken({ ...base(), nbf: T0 / 1000 + 120 });
    expect(await hsVerifier().verify(token)).toEqual({ ok: false, reason: 'not_yet_valid' });
    expect((await hsVerifier(T0 + 60_000).verify(token)).ok).toBe(true);
  });

  it('refuses a token without expiry', async () => {
    const { exp: _exp, ...noExp } = base();
    expect(await hsVerifier().verify(await customToken(noExp))).toEqual({ ok: false, reason: 'missing_expiry' });
  });

  it.each([
    ['missing sub', { sub: undefined }, 'invalid_subject'],
    ['empty sub', { sub: '' }, 'invalid_subject'],
    ['missing tenant_id', { tenant_id: undefined }, 'invalid_tenant'],
    ['numeric tenant_id', { tenant_id: 42 }, 'invalid_tenant'],
    ['tenant_id that would break group names', { tenant_id: 'acme:dev-1' }, 'invalid_tenant'],
    ['roles as a string', { roles: 'admin' }, 'invalid_roles'],
    ['roles with a non-string', { roles: ['reader', 7] }, 'invalid_roles'],
  ])('refuses a token with %s', async (_name, claims, reason) => {
    const token = await customToken({ ...base(), ...claims });
    expect(await hsVerifier().verify(token)).toEqual({ ok: false, reason });
  });

  it.each(['', 'not-a-jwt', 'a.b.c', 'x'.repeat(10_000)])('refuses malformed input %#', async (token) => {
    expect(await hsVerifier().verify(token)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('refuses weak or contradictory configuration at start-up', () => {
    expect(() => createJwtVerifier({ secret: 'short', issuer: ISSUER, audience: AUDIENCE })).toThrow(/32 bytes/);
    expect(() => createJwtVerifier({ issuer: ISSUER, audience: AUDIENCE })).toThrow(/exactly one/);
    expect(() =>
      createJwtVerifier({ secret: SECRET, jwksUri: 'https://x.test/jwks', issuer: ISSUER, audience: AUDIENCE }),
    ).toThrow(/exactly one/);
    expect(() =>
      createJwtVerifier({ jwksUri: 'http://keys.example.com/jwks', issuer: ISSUER, audience: AUDIENCE }),
    ).toThrow(/https/);
  });
});

describe('JWKS (asymmetric) user tokens', () => {
  let server: Server;
  let jwksUri: string;
  const keys = {} as Record<'rs' | 'es' | 'other', Awaited<ReturnType<typeof generateKeyPair>>>;

  beforeAll(async () => {
    keys.rs = await generateKeyPair('RS256', { extractable: true });
    keys.es = await generateKeyPair('ES256', { extractable: true });
    keys.other = await generateKeyPair('RS256');
    const jwks = {
      keys: [
        { ...(await exportJWK(keys.rs.publicKey)), kid: 'rs', alg: 'RS256', use: 'sig' },
        { ...(await exportJWK(keys.es.publicKey)), kid: 'es', alg: 'ES256', use: 'sig' },
      ],
    };
    server = createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify(jwks)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const sign = (alg: string, kid: string, key: CryptoKey | Uint8Array, claims: JWTPayload = base()) =>
    new SignJWT(claims).setProtectedHeader({ alg, kid }).sign(key);
  const verifier = (uri = jwksUri) =>
    createJwtVerifier({ jwksUri: uri, issuer: ISSUER, audience: AUDIENCE, now: at(T0) });

  it('accepts RS256 and ES256 tokens signed by keys in the set', async () => {
    const rs = await verifier().verify(await sign('RS256', 'rs', keys.rs.privateKey));
    const es = await verifier().verify(await sign('ES256', 'es', keys.es.privateKey));
    expect(rs.ok && rs.principal.tenantId).toBe('acme');
    expect(es.ok && es.principal.sub).toBe('alice');
  });

  it('refuses a token signed by a key outside the set, even with a known kid', async () => {
    const token = await sign('RS256', 'rs', keys.other.privateKey);
    expect(await verifier().verify(token)).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const pem = new TextEncoder().encode(await exportSPKI(keys.rs.publicKey));
    const token = await sign('HS256', 'rs', pem);
    expect(await verifier().verify(token)).toEqual({ ok: false, reason: 'algorithm_not_allowed' });
  });

  it('reports an unreachable key set as a reason instead of throwing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const token = await sign('RS256', 'rs', keys.rs.privateKey);
    expect(await verifier(`http://127.0.0.1:${port}/jwks`).verify(token)).toEqual({
      ok: false,
      reason: 'key_unavailable',
    });
  });
});
