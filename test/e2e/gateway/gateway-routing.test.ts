import { SignJWT } from 'jose';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../../support/app-harness.js';
import { GATEWAY_MAIN, startChildHub, type ChildHub } from '../../support/child-hub.js';
import { connectDevice } from '../../support/mqtt-device.js';
import { freePort } from '../../support/private-server.js';
import { startOfficialClient, type Subscriber } from '../../support/web-pubsub-client.js';
import { ACCESS_KEY, startHubProcess, type HubProcess } from '../../support/hub-stamps.js';

/** socket.io through the gateway: the token also in the query, where the gateway can read it. */
function connectThrough(url: string, token: string, transports: ('polling' | 'websocket')[]): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = io(`${url}/telemetry`, {
      auth: { token },
      query: { access_token: token },
      transports,
      reconnection: false,
    });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

describe('gateway: tenants routed to their stamps (real hub processes and a real gateway process)', () => {
  let a: HubProcess;
  let b: HubProcess;
  let gateway: ChildHub;
  const closers: (() => unknown)[] = [];

  beforeAll(async () => {
    // One after the other: a failed start must not leave the other process without an owner.
    a = await startHubProcess();
    b = await startHubProcess();
    const down = `http://127.0.0.1:${await freePort()}`;
    gateway = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        `--Gateway:Stamps=pool-a=${a.url}; silo-b=${b.url}; empty=${down}`,
        '--Gateway:Tenants=demo=pool-a, acme=silo-b, ghost=empty',
        `--Hub:AccessKey=${ACCESS_KEY}`,
        '--Gateway:HealthIntervalSeconds=0.2',
      ],
      {},
      30_000,
      GATEWAY_MAIN,
    );
    // Each stamp knows only the devices that published to its own embedded broker.
    for (const [hub, tenant, device] of [
      [a, 'demo', 'dev-a'],
      [b, 'acme', 'dev-b'],
    ] as const) {
      const d = await connectDevice(hub.brokerUrl, tenant, device);
      await d.publishAsync(`tenants/${tenant}/devices/${device}/telemetry`, JSON.stringify({ t: 1 }), { qos: 1 });
      closers.push(() => d.endAsync());
    }
  }, 90_000);

  afterAll(async () => {
    for (const close of closers) await close();
    await gateway?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  const devicesOf = async (tenant: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${gateway.url}/v1/devices`, {
      headers: { authorization: `Bearer ${await userToken(tenant)}`, ...headers },
    });
    return {
      status: res.status,
      ids: ((await res.json()) as { items: { deviceId: string }[] }).items.map((i) => i.deviceId),
    };
  };

  it('each tenant reaches its own stamp over HTTP', async () => {
    expect(await devicesOf('demo')).toEqual({ status: 200, ids: ['dev-a'] });
    expect(await devicesOf('acme')).toEqual({ status: 200, ids: ['dev-b'] });
  });

  it('a tenant the catalogue does not know gets a 404 problem', async () => {
    const res = await fetch(`${gateway.url}/v1/devices`, {
      headers: { authorization: `Bearer ${await userToken('nobody')}` },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await res.json()) as { code: string }).code).toBe('HUB_ERR_GATEWAY_UNKNOWN_TENANT');
  });

  it('a stamp with no ready instance answers 503 with Retry-After', async () => {
    const res = await fetch(`${gateway.url}/v1/devices`, {
      headers: { authorization: `Bearer ${await userToken('ghost')}` },
    });
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await res.json()) as { code: string }).code).toBe('HUB_ERR_GATEWAY_NO_READY_INSTANCE');
  });

  it('a token with a forged tenant is refused by the gateway (401), never routed', async () => {
    const forged = await new SignJWT({ tenant_id: 'acme', roles: [] })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('mallory')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-secret-not-the-secret-not-the-secret'));
    const res = await fetch(`${gateway.url}/v1/devices`, { headers: { authorization: `Bearer ${forged}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('no credentials and no default stamp: 401', async () => {
    expect((await fetch(`${gateway.url}/v1/devices`)).status).toBe(401);
  });

  it('continues the caller’s trace: the hub logs the same trace id', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const res = await devicesOf('demo', { traceparent: `00-${traceId}-00f067aa0ba902b7-01` });
    expect(res.status).toBe(200);
    await eventually(() => a.output().includes(traceId), 3000, 'the hub to log the trace id');
  });

  it('forwarded headers from an untrusted client are replaced: negotiate answers for the gateway’s own host', async () => {
    const res = await fetch(`${gateway.url}/api/negotiate`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await userToken('acme')}`,
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
        forwarded: 'host=evil.example',
      },
    });
    expect(res.status).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect(new URL(url).host).toBe(new URL(gateway.url).host);
    expect(url.startsWith('ws://')).toBe(true);
  });

  it('socket.io over WebSocket and over long-polling reaches the tenant’s stamp and gets live readings', async () => {
    const token = await userToken('demo');
    for (const transports of [['websocket'], ['polling']] as const) {
      const socket = await connectThrough(gateway.url, token, [...transports]);
      closers.push(() => socket.close());
      const ack = (await socket.emitWithAck('subscribe', { deviceId: 'dev-a' })) as {
        ok: boolean;
        last: { deviceId: string } | null;
      };
      expect(ack.ok).toBe(true);
      // Only stamp A has seen dev-a: a `last` proves the socket landed there.
      expect(ack.last?.deviceId).toBe('dev-a');
      const got: number[] = [];
      socket.on('reading', (r: { data: { n: number } }) => got.push(r.data.n));
      const device = await connectDevice(a.brokerUrl, 'demo', 'dev-a');
      await device.publishAsync('tenants/demo/devices/dev-a/telemetry', JSON.stringify({ n: transports.length + 41 }), {
        qos: 1,
      });
      await device.endAsync();
      await eventually(() => got.includes(42), 5000, `a live reading over ${transports[0]}`);
      socket.close();
    }
  });

  it('the official Web PubSub client negotiates and connects through the gateway and receives its stamp’s readings', async () => {
    const negotiate = async () => {
      const res = await fetch(`${gateway.url}/api/negotiate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await userToken('acme')}` },
      });
      return ((await res.json()) as { url: string }).url;
    };
    const subscriber: Subscriber = await startOfficialClient({ getClientAccessUrl: negotiate }, false);
    closers.push(() => subscriber.client.stop());
    await subscriber.client.joinGroup('device:acme:dev-b');
    const device = await connectDevice(b.brokerUrl, 'acme', 'dev-b');
    await device.publishAsync('tenants/acme/devices/dev-b/telemetry', JSON.stringify({ n: 7 }), { qos: 1 });
    await device.endAsync();
    await eventually(() => subscriber.readings().some((r) => r.data['n'] === 7), 5000, 'a reading through the gateway');
  });
});
