import { SendMessageError } from '@azure/web-pubsub-client';
import { decodeJwt } from 'jose';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../../support/app-harness.js';
import {
  connectClient,
  negotiate,
  startServerlessApp,
  type ServerlessApp,
  type Subscriber,
} from './serverless-harness.js';

let hub: ServerlessApp;
const clients: Subscriber[] = [];

beforeAll(async () => {
  hub = await startServerlessApp();
});
afterEach(() => {
  for (const c of clients.splice(0)) c.client.stop();
});
afterAll(async () => {
  await hub?.stop();
});

async function connect(tenant: string, reliable: boolean, sub?: string): Promise<Subscriber> {
  const c = await connectClient(hub.url, await userToken(tenant, sub ? { sub } : {}), reliable);
  clients.push(c);
  return c;
}

describe('POST /api/negotiate', () => {
  it('answers a client access URL for the user: sub and tenant_id, no roles, the host as audience', async () => {
    const user = await userToken('t1', { sub: 'alice', expiresInSeconds: 4 * 3600 });
    const res = await negotiate(hub.url, user);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { url } = (await res.json()) as { url: string };
    const parsed = new URL(url);
    expect(`${parsed.protocol}//${parsed.host}${parsed.pathname}`).toBe(
      `${hub.url.replace('http:', 'ws:')}/client/hubs/telemetry`,
    );
    const claims = decodeJwt(parsed.searchParams.get('access_token')!);
    expect(claims).toMatchObject({ sub: 'alice', tenant_id: 't1', aud: `${hub.url}/client/hubs/telemetry` });
    expect(claims.role).toBeUndefined();
    // Joined on connect: the group subscribe checks ownership with.
    expect(claims['webpubsub.group']).toEqual(['owner:t1:alice']);
    expect(claims.exp! - claims.iat!).toBe(3600);
  });

  it('401 problem with a Bearer challenge without a token or with a bad one; 405 for GET', async () => {
    const none = await negotiate(hub.url, undefined);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await none.json()).toMatchObject({
      status: 401,
      code: 'HUB_ERR_AUTH_UNAUTHENTICATED',
      instance: '/api/negotiate',
    });

    const bad = await negotiate(hub.url, `${await userToken('t1')}x`);
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await bad.json()).toMatchObject({ code: 'HUB_ERR_AUTH_INVALID_TOKEN' });

    const get = await fetch(`${hub.url}/api/negotiate`);
    expect(get.status).toBe(405);
  });

  it("is rate limited per user by the 'functions' policy", async () => {
    const token = await userToken('t1', { sub: 'eager' });
    const statuses = await Promise.all(
      Array.from({ length: 40 }, async () => (await negotiate(hub.url, token)).status),
    );
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    const other = await negotiate(hub.url, await userToken('t1', { sub: 'patient' }));
    expect(other.status).toBe(200);
  });
});

/** The status and problem code a refused WebSocket handshake answers with. */
function refusedUpgrade(url: string): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'json.webpubsub.azure.v1');
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => undefined);
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve([res.statusCode!, (JSON.parse(text) as { code: string }).code]));
    });
  });
}

describe('GET /client/hubs/{hub}', () => {
  it('answers 426 problem naming websocket without an upgrade', async () => {
    const res = await fetch(`${hub.url}/client/hubs/telemetry`);
    expect(res.status).toBe(426);
    expect(res.headers.get('upgrade')).toBe('websocket');
    expect(await res.json()).toMatchObject({ code: 'HUB_ERR_HTTP_UPGRADE_REQUIRED' });
  });

  it('refuses the handshake with a problem: no token 401, a user token instead of an access token 401, another hub 404', async () => {
    const ws = hub.url.replace('http:', 'ws:');
    const { url } = (await (await negotiate(hub.url, await userToken('t1'))).json()) as { url: string };
    expect(await refusedUpgrade(`${ws}/client/hubs/telemetry`)).toEqual([401, 'HUB_ERR_AUTH_UNAUTHENTICATED']);
    expect(await refusedUpgrade(`${ws}/client/hubs/telemetry?access_token=${await userToken('t1')}`)).toEqual([
      401,
      'HUB_ERR_AUTH_INVALID_TOKEN',
    ]);
    expect(await refusedUpgrade(url.replace('/hubs/telemetry', '/hubs/other'))).toEqual([
      404,
      'HUB_ERR_HTTP_NOT_FOUND',
    ]);
  });
});

describe.each([
  ['json.webpubsub.azure.v1', false],
  ['json.reliable.webpubsub.azure.v1', true],
])('the official WebPubSubClient over %s with a negotiated URL', (_name, reliable) => {
  it('joins its own tenant device group and receives the readings devices publish over MQTT', async () => {
    const device = `own-${reliable ? 'r' : 'j'}`;
    const c = await connect('t1', reliable, 'alice');
    expect(c.userId).toBe('alice');
    await c.client.joinGroup(`device:t1:${device}`);

    await hub.publish('t1', device, { temperature: 20.5 });
    await hub.publish('t1', 'other-device', { temperature: 1 }); // not joined
    await hub.publish('t1', device, { temperature: 21 });
    await eventually(() => c.group.length >= 2, 5000, 'two readings');
    expect(c.group.map((m) => [m.group, m.dataType])).toEqual([
      [`device:t1:${device}`, 'json'],
      [`device:t1:${device}`, 'json'],
    ]);
    expect(c.readings()).toMatchObject([
      { tenantId: 't1', deviceId: device, seq: 1, data: { temperature: 20.5 } },
      { tenantId: 't1', deviceId: device, seq: 2, data: { temperature: 21 } },
    ]);
    if (reliable) expect(c.group.map((m) => m.sequenceId)).toEqual([1, 2]);
  });

  it("is refused another tenant's device group (Forbidden ack) and receives none of its readings", async () => {
    const device = `theirs-${reliable ? 'r' : 'j'}`;
    const c = await connect('t2', reliable);
    const error = await c.client.joinGroup(`device:t1:${device}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendMessageError);
    expect((error as SendMessageError).errorDetail?.name).toBe('Forbidden');

    const owner = await connect('t1', reliable);
    await owner.client.joinGroup(`device:t1:${device}`);
    await hub.publish('t1', device, { temperature: 5 });
    await eventually(() => owner.group.length === 1, 5000, 'owner got the reading');
    expect(c.group).toEqual([]);
  });

  it('subscribes with the hub method (event "subscribe"): ack, the last reading, then live readings', async () => {
    const device = `event-${reliable ? 'r' : 'j'}`;
    await hub.publish('t1', device, { temperature: 30 });
    await eventually(
      () => hub.running.app.telemetry.registry.last('t1', device) !== undefined,
      5000,
      'reading accepted',
    );

    const c = await connect('t1', reliable);
    await c.client.sendEvent('subscribe', { deviceId: device }, 'json');
    await eventually(() => c.server.length === 1, 5000, 'snapshot');
    expect(c.server[0]).toMatchObject({
      dataType: 'json',
      data: { tenantId: 't1', deviceId: device, seq: 1, data: { temperature: 30 } },
    });

    await hub.publish('t1', device, { temperature: 31 });
    await eventually(() => c.group.length === 1, 5000, 'live reading');
    expect(c.readings()[0]).toMatchObject({ deviceId: device, seq: 2, data: { temperature: 31 } });
  });
});
