import { SignJWT, decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  clientAccessUrl,
  clientAudience,
  mintClientAccessToken,
  verifyClientAccessToken,
  verifyManagementToken,
} from '../../../src/wire/webpubsub/access-token.js';
import { audienceBases, clientAudiences, managementAudiences } from '../../../src/wire/webpubsub/audience.js';
import { parseConnectionString } from '../../../src/wire/webpubsub/connection-string.js';
import { isSupportedApiVersion } from '../../../src/features/management/api-version.js';
import { matchManagementRoute } from '../../../src/features/management/management-route.js';

const KEY = 'k3y';
const sign = (payload: Record<string, unknown>, aud: string, key = KEY, exp = '1h') =>
  new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(aud)
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(key));

describe('client access tokens', () => {
  const audiences = clientAudiences(audienceBases('http://127.0.0.1:8080', '127.0.0.1:8080'), 'telemetry');

  it('mints the service claims and verifies them back', async () => {
    const token = await mintClientAccessToken({
      accessKey: KEY,
      audience: clientAudience('http://127.0.0.1:8080/', 'telemetry'),
      userId: 'u1',
      tenantId: 'demo',
      roles: ['webpubsub.joinLeaveGroup.chat'],
      groups: ['device:demo:d1'],
    });
    const payload = decodeJwt(token);
    expect(payload).toMatchObject({
      aud: 'http://127.0.0.1:8080/client/hubs/telemetry',
      sub: 'u1',
      tenant_id: 'demo',
      role: ['webpubsub.joinLeaveGroup.chat'],
      'webpubsub.group': ['device:demo:d1'],
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    const verified = await verifyClientAccessToken(token, { accessKey: KEY, audiences });
    expect(verified).toEqual({
      ok: true,
      claims: {
        userId: 'u1',
        tenantId: 'demo',
        roles: ['webpubsub.joinLeaveGroup.chat'],
        groups: ['device:demo:d1'],
        expiresAt: payload.exp,
      },
    });
  });

  it('accepts https and case differences in the audience, a single role string', async () => {
    const token = await sign({ role: 'webpubsub.sendToGroup' }, 'HTTPS://127.0.0.1:8080/client/hubs/Telemetry/');
    const verified = await verifyClientAccessToken(token, { accessKey: KEY, audiences });
    expect(verified.ok && verified.claims.roles).toEqual(['webpubsub.sendToGroup']);
  });

  it('refuses a wrong key, another hub, an expired or missing token', async () => {
    const good = 'http://127.0.0.1:8080/client/hubs/telemetry';
    expect(await verifyClientAccessToken(await sign({}, good, 'other'), { accessKey: KEY, audiences })).toEqual({
      ok: false,
      reason: 'invalid',
    });
    expect(
      await verifyClientAccessToken(await sign({}, 'http://127.0.0.1:8080/client/hubs/other'), {
        accessKey: KEY,
        audiences,
      }),
    ).toEqual({
      ok: false,
      reason: 'audience',
    });
    expect(await verifyClientAccessToken(await sign({}, good, KEY, '-1h'), { accessKey: KEY, audiences })).toEqual({
      ok: false,
      reason: 'expired',
    });
    expect(await verifyClientAccessToken(undefined, { accessKey: KEY, audiences })).toEqual({
      ok: false,
      reason: 'missing',
    });
    expect(await verifyClientAccessToken('garbage', { accessKey: KEY, audiences })).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('builds ws client URLs', () => {
    expect(clientAccessUrl('https://h.example/', 'telemetry', 'a.b')).toBe(
      'wss://h.example/client/hubs/telemetry?access_token=a.b',
    );
    expect(clientAudience('ws://h:1', 'hub')).toBe('http://h:1/client/hubs/hub');
  });
});

describe('management tokens', () => {
  it('take the request URL as audience, with the query the SDK signs with or without any', async () => {
    const path = '/api/hubs/telemetry/groups/device%3Ademo%3Ad1/connections/c1';
    const audiences = managementAudiences(
      audienceBases('https://public.example', '127.0.0.1:9'),
      `${path}?api-version=2024-12-01`,
    );
    const token = await sign({}, `http://127.0.0.1:9${path}?api-version=2024-12-01`);
    expect((await verifyManagementToken(token, { accessKey: KEY, audiences })).ok).toBe(true);
    const otherQuery = await sign({}, `http://127.0.0.1:9${path}?api-version=2024-01-01`);
    expect(await verifyManagementToken(otherQuery, { accessKey: KEY, audiences })).toEqual({
      ok: false,
      reason: 'audience',
    });
    const viaProxy = await sign({}, `https://public.example${path}`);
    expect((await verifyManagementToken(viaProxy, { accessKey: KEY, audiences })).ok).toBe(true);
    const otherPath = await sign({}, 'http://127.0.0.1:9/api/hubs/telemetry/:send');
    expect(await verifyManagementToken(otherPath, { accessKey: KEY, audiences })).toEqual({
      ok: false,
      reason: 'audience',
    });
  });

  it('requires api-version 2024-01-01 or later', () => {
    expect(isSupportedApiVersion('2024-01-01')).toBe(true);
    expect(isSupportedApiVersion('2024-12-01')).toBe(true);
    expect(isSupportedApiVersion('2025-01-01-preview')).toBe(true);
    expect(isSupportedApiVersion('2023-07-01')).toBe(false);
    expect(isSupportedApiVersion(undefined)).toBe(false);
    expect(isSupportedApiVersion('latest')).toBe(false);
  });

  it('matches the routes with decoded segments', () => {
    expect(matchManagementRoute('/api/hubs/h/groups/device%3Ademo%3Ad1/connections/c%2F1')).toEqual({
      op: 'groupConnection',
      hub: 'h',
      group: 'device:demo:d1',
      connectionId: 'c/1',
    });
    expect(matchManagementRoute('/api/hubs/h/groups/g/:send')).toEqual({ op: 'sendToGroup', hub: 'h', group: 'g' });
    expect(matchManagementRoute('/api/hubs/h/:send')).toEqual({ op: 'sendToAll', hub: 'h' });
    expect(matchManagementRoute('/api/hubs/h/connections/c')).toEqual({
      op: 'connection',
      hub: 'h',
      connectionId: 'c',
    });
    expect(matchManagementRoute('/api/health')).toEqual({ op: 'health' });
    expect(matchManagementRoute('/api/hubs/h/groups/%E0%A4%A/:send')).toBeUndefined();
    expect(matchManagementRoute('/api/hubs/h/users/u%2F1/:send')).toEqual({
      op: 'sendToUser',
      hub: 'h',
      userId: 'u/1',
    });
    expect(matchManagementRoute('/api/hubs/h/users/u/groups')).toBeUndefined();
  });
});

describe('parseConnectionString', () => {
  it('parses like the official SDK', () => {
    expect(parseConnectionString('Endpoint=http://127.0.0.1;AccessKey=abc=;Version=1.0;Port=8080;')).toEqual({
      endpoint: 'http://127.0.0.1:8080',
      accessKey: 'abc=',
      version: '1.0',
    });
    expect(parseConnectionString('endpoint=hub.example.com;accesskey=k').endpoint).toBe('https://hub.example.com');
  });

  it('names what is missing', () => {
    expect(() => parseConnectionString('AccessKey=k')).toThrow(/Endpoint/);
    expect(() => parseConnectionString('Endpoint=https://x')).toThrow(/AccessKey/);
    expect(() => parseConnectionString('Endpoint=https://x;AccessKey=k;Port=abc')).toThrow(/Port/);
  });
});
