import { io, type Socket } from 'socket.io-client';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { connectDevice } from '../../support/mqtt-device.js';

const ROUTE = '/socket.io/{*rest}';
const ALLOWED = 'http://dashboard.example';

function requestLines(hub: RunningApp): Record<string, unknown>[] {
  return hub.logs.filter((l) => l['msg'] === 'request' && l['route'] === ROUTE);
}

/** Subscribes to a device, publishes one reading over MQTT and resolves with what the client received. */
async function roundTrip(hub: RunningApp, socket: Socket, deviceId: string): Promise<unknown> {
  const ack = (await socket.emitWithAck('subscribe', { deviceId })) as { ok: boolean };
  expect(ack.ok).toBe(true);
  const received = new Promise((resolve) => socket.once('reading', resolve));
  const device = await connectDevice(hub.brokerUrl!, 't1', deviceId);
  await device.publishAsync(`tenants/t1/devices/${deviceId}/telemetry`, JSON.stringify({ v: 1 }));
  await device.endAsync();
  return received;
}

describe('socket.io on the host pipeline', () => {
  let hub: RunningApp;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    hub = await startApp([`--Cors:AllowedOrigins=${ALLOWED}`]);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await hub?.stop();
  });

  it('a websocket-only socket.io-client connects through the pipeline: its upgrade is a request line with the route', async () => {
    const before = requestLines(hub).length;
    const socket = await connectTelemetry(hub.url, await userToken('t1'));
    sockets.push(socket);
    expect(await roundTrip(hub, socket, 'ws-only')).toMatchObject({
      tenantId: 't1',
      deviceId: 'ws-only',
      data: { v: 1 },
    });
    const lines = requestLines(hub).slice(before);
    expect(lines).toContainEqual(expect.objectContaining({ method: 'GET', status: 101, route: ROUTE }));
  });

  it('a polling client upgrades to websocket; its handshake, polls and posts run through the pipeline', async () => {
    const before = requestLines(hub).length;
    const token = await userToken('t1');
    const socket = io(`${hub.url}/telemetry`, {
      auth: { token },
      transports: ['polling', 'websocket'],
      reconnection: false,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    await eventually(() => socket.io.engine.transport.name === 'websocket', 5000, 'the upgrade to websocket');
    expect(await roundTrip(hub, socket, 'upgraded')).toMatchObject({ deviceId: 'upgraded', data: { v: 1 } });
    await eventually(
      () =>
        requestLines(hub)
          .slice(before)
          .some((l) => l['method'] === 'POST'),
      3000,
      'the POST request line',
    );
    const lines = requestLines(hub).slice(before);
    // The handshake (GET 200), the CONNECT packet (POST 200) and the upgrade (101).
    expect(lines).toContainEqual(expect.objectContaining({ method: 'GET', status: 200 }));
    expect(lines).toContainEqual(expect.objectContaining({ method: 'POST', status: 200 }));
    expect(lines).toContainEqual(expect.objectContaining({ method: 'GET', status: 101 }));
  });

  it('the namespace still refuses a connection without a token', async () => {
    await expect(connectTelemetry(hub.url, undefined)).rejects.toMatchObject({
      data: { code: 'HUB_ERR_AUTH_UNAUTHENTICATED' },
    });
  });

  it("polling answers carry the pipeline's CORS headers for allowed origins only, and preflights are answered", async () => {
    const handshake = (origin: string) =>
      fetch(`${hub.url}/socket.io/?EIO=4&transport=polling`, { headers: { origin } });
    const allowed = await handshake(ALLOWED);
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(allowed.headers.get('vary')).toMatch(/origin/i);
    expect(await allowed.text()).toMatch(/^0\{"sid":/);
    const other = await handshake('http://elsewhere.example');
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    await other.text();

    const preflight = await fetch(`${hub.url}/socket.io/?EIO=4&transport=polling`, {
      method: 'OPTIONS',
      headers: {
        origin: ALLOWED,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });
});

describe('new connections per client address', () => {
  let hub: RunningApp;

  beforeAll(async () => {
    // The hub's clock stands still: the bucket of 3 never refills during the test.
    hub = await startApp(
      ['--Http:WebSocketUpgradesPerIpPerSecond=1', '--Http:WebSocketUpgradeBurstPerIp=3'],
      undefined,
      new ManualClock(Date.now()),
    );
  });
  afterAll(async () => {
    await hub?.stop();
  });

  it('refuses handshakes and upgrades beyond the limit with a 429 problem, and lets an open session poll on', async () => {
    const handshake = () => fetch(`${hub.url}/socket.io/?EIO=4&transport=polling`);
    const first = await handshake();
    const sid = (JSON.parse((await first.text()).slice(1)) as { sid: string }).sid;
    for (let i = 0; i < 2; i++) expect((await handshake()).status).toBe(200);

    const refused = await handshake();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.json()).toMatchObject({ code: 'HUB_ERR_RATE_LIMITED', policy: 'websocket-upgrades' });

    // A WebSocket upgrade is a new connection too, on either endpoint.
    for (const path of ['/socket.io/?EIO=4&transport=websocket', '/client/hubs/telemetry']) {
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${hub.url.replace('http', 'ws')}${path}`);
        ws.once('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.once('open', () => reject(new Error(`upgrade of ${path} was accepted`)));
        ws.once('error', () => undefined);
      });
      expect(status).toBe(429);
    }

    // The session opened before the limit is not a new connection: its polls pass.
    const poll = await fetch(`${hub.url}/socket.io/?EIO=4&transport=polling&sid=${sid}`, {
      method: 'POST',
      body: '40/telemetry,{}',
    });
    expect(poll.status).toBe(200);
  });
});
