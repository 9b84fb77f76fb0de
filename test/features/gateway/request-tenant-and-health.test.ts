import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createRequestTenantResolver } from '../../../src/features/gateway/request-tenant.js';
import { createEdgeIdentity } from '../../../src/host/edge/edge-identity.js';
import { UpstreamHealth } from '../../../src/features/gateway/upstream-health.js';
import { clientAudience, mintClientAccessToken } from '../../../src/wire/webpubsub/access-token.js';
import { serializeSessionCookie } from '../../../src/host/security/cookie.js';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../../src/host/security/dev-defaults.js';
import { createJwtVerifier } from '../../../src/host/security/jwt-bearer.js';
import { userToken } from '../../support/app-harness.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';

const ACCESS_KEY = 'request-tenant-test-access-key-0123456789';

function request(url: string, headers: Record<string, string> = {}): IncomingMessage {
  return { url, headers: { host: 'gw.example', ...headers }, socket: new Socket() } as unknown as IncomingMessage;
}

const resolve = createRequestTenantResolver({
  verifier: createJwtVerifier({ secret: DEV_JWT_SECRET, issuer: DEV_JWT_ISSUER, audience: DEV_JWT_AUDIENCE }),
  accessKey: ACCESS_KEY,
  sessionSecret: DEV_JWT_SECRET,
  edge: createEdgeIdentity(),
  now: () => Date.now(),
});

describe('the tenant of a request', () => {
  it('from a user token in the Authorization header or the access_token query', async () => {
    const token = await userToken('acme');
    expect(await resolve(request('/v1/devices', { authorization: `Bearer ${token}` }))).toEqual({
      kind: 'tenant',
      tenantId: 'acme',
    });
    expect(await resolve(request(`/socket.io/?EIO=4&transport=websocket&access_token=${token}`))).toEqual({
      kind: 'tenant',
      tenantId: 'acme',
    });
  });

  it('from a Web PubSub client token on /client/hubs/{hub}, for this host only', async () => {
    const token = await mintClientAccessToken({
      accessKey: ACCESS_KEY,
      audience: clientAudience('http://gw.example', 'telemetry'),
      tenantId: 'globex',
      userId: 'u',
    });
    const upgrade = { connection: 'Upgrade', upgrade: 'websocket' };
    expect(await resolve(request(`/client/hubs/telemetry?access_token=${token}`, upgrade))).toEqual({
      kind: 'tenant',
      tenantId: 'globex',
    });
    const elsewhere = await mintClientAccessToken({
      accessKey: ACCESS_KEY,
      audience: clientAudience('http://other.example', 'telemetry'),
      tenantId: 'globex',
    });
    expect(await resolve(request(`/client/hubs/telemetry?access_token=${elsewhere}`, upgrade))).toMatchObject({
      kind: 'invalid',
    });
    // A client token is no user token: elsewhere it does not pass.
    expect(await resolve(request('/v1/devices', { authorization: `Bearer ${token}` }))).toMatchObject({
      kind: 'invalid',
    });
  });

  it('from the dashboard session cookie; a tampered cookie counts as none', async () => {
    const cookie = serializeSessionCookie(
      { sub: 'u', tenantId: 'initech', roles: [], scheme: 'cookie' },
      DEV_JWT_SECRET,
      { maxAgeSeconds: 60, secure: false },
    ).split(';')[0]!;
    expect(await resolve(request('/', { cookie }))).toEqual({ kind: 'tenant', tenantId: 'initech' });
    expect(await resolve(request('/', { cookie: cookie.slice(0, -2) + 'xx' }))).toEqual({ kind: 'anonymous' });
    expect(await resolve(request('/'))).toEqual({ kind: 'anonymous' });
  });
});

describe('UpstreamHealth', () => {
  it('routes only to instances whose last poll was ready; an unreachable one leaves at once and returns with a ready poll', async () => {
    const clock = new ManualClock();
    const ready = new Map([
      ['http://a', true],
      ['http://b', false],
    ]);
    const health = new UpstreamHealth({
      stamps: [{ name: 'pool', instances: ['http://a', 'http://b'] }],
      intervalMs: 1000,
      timeoutMs: 500,
      clock,
      log: pino({ enabled: false }),
      probe: async (instance) => ready.get(instance)!,
    });
    await health.start();
    expect(health.readyInstances('pool')).toEqual(['http://a']);
    ready.set('http://b', true);
    clock.advance(1000);
    await health.pollOnce();
    expect(health.readyInstances('pool')).toEqual(['http://a', 'http://b']);
    health.markDown('http://a');
    expect(health.readyInstances('pool')).toEqual(['http://b']);
    await health.pollOnce();
    expect(health.readyInstances('pool')).toEqual(['http://a', 'http://b']);
    expect(health.readyInstances('unknown')).toEqual([]);
    await health.stop();
  });
});
