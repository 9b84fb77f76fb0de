import { WebPubSubServiceClient } from '@azure/web-pubsub';
import { SignJWT, decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userToken } from '../../../support/app-harness.js';
import { GATEWAY_MAIN, startChildHub, type ChildHub } from '../../../support/child-hub.js';
import { privateNginx } from '../../../support/private-nginx.js';
import { requireCommand } from '../../../support/private-server.js';
import { startOfficialClient, type Subscriber } from '../../../support/web-pubsub-client.js';
import { ACCESS_KEY, startHubProcess, type HubProcess } from '../../../support/hub-stamps.js';
import { rawExchange, type ParsedResponse } from '../http-edges/raw-http.js';

// Issue 25 item 1 (CRITICAL): a client token minted through negotiate must never work on the
// management API, whatever Host the negotiate request carried, directly, through nginx and
// through the gateway. Real hub, nginx and gateway processes; raw TCP for the Host headers Node's
// own client would refuse or normalise.

const HUB = 'telemetry';
const hasNginx = requireCommand('nginx', 'the negotiate forgery is tried through nginx too');

/** One raw HTTP/1.1 request with exactly the Host given; the parsed response. */
async function raw(
  url: string,
  method: string,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<ParsedResponse> {
  const lines = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${host}`,
    'Connection: close',
    'Content-Length: 0',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    '',
    '',
  ];
  const outcome = await rawExchange(url, (socket) => socket.write(lines.join('\r\n')));
  expect(outcome.response, outcome.received.toString('latin1').slice(0, 300)).toBeDefined();
  return outcome.response!;
}

/** The Host an attacker sends so that `{scheme}://{Host}/client/hubs/{hub}` reads as a management URL. */
function forgingHosts(hubHost: string, connectionId: string): string[] {
  const target = `/api/hubs/${HUB}/groups/device:victim:d1/connections/${connectionId}`;
  return [
    `${hubHost}${target}?`,
    `${hubHost}${target}#`,
    `${hubHost}${target.replaceAll('/', '\\')}?`,
    `${hubHost}\\api\\hubs\\${HUB}\\:send?`,
    `user@${hubHost}`,
  ];
}

/** A token signed with the hub's access key, as a client token through negotiate would be. */
function clientShapedToken(
  aud: string,
  claims: Record<string, unknown> = { tenant_id: 'attacker', 'webpubsub.group': ['owner:attacker:mallory'] },
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(aud)
    .setSubject('mallory')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(ACCESS_KEY));
}

/** Every management route, as the official SDK addresses them. */
function managementRoutes(connectionId: string): { method: string; path: string }[] {
  const q = '?api-version=2024-01-01';
  const group = encodeURIComponent('device:victim:d1');
  return [
    { method: 'PUT', path: `/api/hubs/${HUB}/groups/${group}/connections/${connectionId}${q}` },
    { method: 'DELETE', path: `/api/hubs/${HUB}/groups/${group}/connections/${connectionId}${q}` },
    { method: 'POST', path: `/api/hubs/${HUB}/groups/${group}/:send${q}` },
    { method: 'POST', path: `/api/hubs/${HUB}/:send${q}` },
    { method: 'DELETE', path: `/api/hubs/${HUB}/connections/${connectionId}${q}` },
    { method: 'HEAD', path: `/api/hubs/${HUB}/connections/${connectionId}${q}` },
    { method: 'GET', path: `/api/hubs/${HUB}/groups/${group}/connections?api-version=2024-12-01` },
  ];
}

describe('forged management tokens (real hub, nginx and gateway processes)', () => {
  let hub: HubProcess;
  let gateway: ChildHub;
  let nginx: Awaited<ReturnType<typeof privateNginx>> | undefined;
  let victim: Subscriber;
  let hubHost: string;

  beforeAll(async () => {
    hub = await startHubProcess();
    hubHost = new URL(hub.url).host;
    gateway = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        `--Gateway:Stamps=pool=${hub.url}`,
        '--Gateway:Tenants=attacker=pool, victim=pool',
        `--Hub:AccessKey=${ACCESS_KEY}`,
        '--Gateway:HealthIntervalSeconds=0.2',
      ],
      {},
      30_000,
      GATEWAY_MAIN,
    );
    if (hasNginx) {
      nginx = await privateNginx([hubHost]);
      await nginx.start();
    }
    // A connection the attacker would like to act on: the victim's, negotiated the normal way.
    const negotiated = await fetch(`${hub.url}/api/negotiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await userToken('victim')}` },
    });
    victim = await startOfficialClient(((await negotiated.json()) as { url: string }).url, false);
  }, 90_000);

  afterAll(async () => {
    await victim?.client.stop();
    await nginx?.dispose();
    await gateway?.stop();
    await hub?.stop();
  });

  const fronts = () => [
    { name: 'the hub', url: hub.url, host: hubHost },
    { name: 'the gateway', url: gateway.url, host: new URL(gateway.url).host },
    ...(nginx ? [{ name: 'nginx', url: `http://127.0.0.1:${nginx.port}`, host: `127.0.0.1:${nginx.port}` }] : []),
  ];

  it('negotiate with a Host that smuggles a path, a query, a fragment, backslashes or userinfo hands out no token: 400', async () => {
    const token = await userToken('attacker', { sub: 'mallory' });
    for (const front of fronts()) {
      for (const host of forgingHosts(front.host, victim.connectionId)) {
        const res = await raw(front.url, 'POST', '/api/negotiate', host, { authorization: `Bearer ${token}` });
        expect(res.status, `${front.name}, Host ${host}`).toBe(400);
        expect(res.body, `${front.name}, Host ${host}`).not.toContain('access_token');
        // nginx refuses such a Host itself (its own page); the hub and the gateway answer problem+json.
        if (front.name !== 'nginx') {
          expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
          expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'HUB_ERR_HTTP_BAD_HOST' });
        }
      }
    }
  });

  it('refuses a malformed Host on every route, WebSocket upgrades included', async () => {
    const bad = `${hubHost}/api/hubs/${HUB}?`;
    for (const path of [
      '/health/live',
      '/v1/devices',
      `/api/hubs/${HUB}/:send?api-version=2024-01-01`,
      '/auth/dev-token',
      '/',
    ]) {
      expect((await raw(hub.url, 'GET', path, bad)).status, path).toBe(400);
    }
    const upgrade = await raw(hub.url, 'GET', `/client/hubs/${HUB}`, bad, {
      Upgrade: 'websocket',
      Connection: 'Upgrade',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version': '13',
    });
    expect(upgrade.status).toBe(400);
    expect(JSON.parse(upgrade.body)).toMatchObject({ code: 'HUB_ERR_HTTP_BAD_HOST' });
  });

  it('a client token negotiated the normal way is refused (401) by every management route', async () => {
    const res = await fetch(`${hub.url}/api/negotiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await userToken('attacker', { sub: 'mallory' })}` },
    });
    const token = new URL(((await res.json()) as { url: string }).url).searchParams.get('access_token')!;
    expect(decodeJwt(token)).toMatchObject({ tenant_id: 'attacker' });
    for (const route of managementRoutes(victim.connectionId)) {
      const answer = await fetch(`${hub.url}${route.path}`, {
        method: route.method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(route.method === 'POST' ? { body: '{"forged":true}' } : {}),
      });
      expect(answer.status, `${route.method} ${route.path}`).toBe(401);
    }
  });

  it('a client-shaped token whose aud names the management URL exactly is refused (401) by every management route', async () => {
    for (const route of managementRoutes(victim.connectionId)) {
      const aud = `${hub.url}${route.path}`;
      for (const claims of [
        { tenant_id: 'attacker' },
        { role: ['webpubsub.joinLeaveGroup.x'] },
        { 'webpubsub.group': ['g'] },
      ]) {
        const answer = await fetch(aud, {
          method: route.method,
          headers: { authorization: `Bearer ${await clientShapedToken(aud, claims)}` },
          ...(route.method === 'POST' ? { body: '{}' } : {}),
        });
        expect(answer.status, `${route.method} ${route.path} ${Object.keys(claims)[0]}`).toBe(401);
      }
    }
  });

  it('a management token is bound to its URL exactly: no backslash, fragment, dropped or other query, other path', async () => {
    const path = `/api/hubs/${HUB}/:send?api-version=2024-01-01`;
    const send = async (aud: string) =>
      (
        await fetch(`${hub.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${await clientShapedToken(aud, {})}`, 'content-type': 'application/json' },
          body: '{}',
        })
      ).status;
    expect(await send(`${hub.url}${path}`)).toBe(202);
    expect(await send(`${hub.url}/api/hubs/${HUB}/:send`)).toBe(202);
    for (const aud of [
      `${hub.url}\\api\\hubs\\${HUB}\\:send`,
      `${hub.url}/api/hubs/${HUB}/:send#x`,
      `${hub.url}/api/hubs/${HUB}/:send?api-version=2099-01-01`,
      `${hub.url}/api/hubs/${HUB}/x/../:send`,
      `${hub.url}/api/hubs/${HUB}/groups/g/:send`,
      `${hub.url}/client/hubs/${HUB}`,
    ]) {
      expect(await send(aud), aud).toBe(401);
    }
  });

  it('the official WebPubSubServiceClient still works against the management API', async () => {
    const service = new WebPubSubServiceClient(`Endpoint=${hub.url};AccessKey=${ACCESS_KEY};Version=1.0;`, HUB, {
      allowInsecureConnection: true,
    });
    expect(await service.connectionExists(victim.connectionId)).toBe(true);
    await service.group('device:victim:d1').addConnection(victim.connectionId);
    await service.group('device:victim:d1').sendToAll({ hello: 'victim' });
    await expect
      .poll(() => victim.group.some((m) => JSON.stringify(m.data).includes('"hello":"victim"')), { timeout: 5000 })
      .toBe(true);
  });
});
