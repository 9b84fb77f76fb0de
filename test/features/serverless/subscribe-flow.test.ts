import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../../support/app-harness.js';
import {
  connectClient,
  startServerlessApp,
  subscribe,
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

async function connect(tenant: string, reliable = false): Promise<Subscriber> {
  const c = await connectClient(hub.url, await userToken(tenant), reliable);
  clients.push(c);
  return c;
}

async function problemOf(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (await res.json()) as Record<string, unknown>;
}

describe('serverless flow: negotiate → connect → POST /api/subscribe → readings', () => {
  it.each([false, true])(
    'adds the connection to the device group through the management API (reliable: %s)',
    async (reliable) => {
      const device = `flow-${reliable ? 'r' : 'j'}`;
      const c = await connect('t1', reliable);
      const res = await subscribe(hub.url, await userToken('t1'), { connectionId: c.connectionId, deviceId: device });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(hub.running.app.telemetry.hub.groupsOf(c.connectionId)).toEqual([
        'owner:t1:user-t1',
        `device:t1:${device}`,
      ]);

      await hub.publish('t1', device, { temperature: 12 });
      await hub.publish('t1', device, { temperature: 13 });
      await eventually(() => c.group.length === 2, 5000, 'readings');
      expect(c.readings()).toMatchObject([
        { tenantId: 't1', deviceId: device, seq: 1, data: { temperature: 12 } },
        { tenantId: 't1', deviceId: device, seq: 2, data: { temperature: 13 } },
      ]);
    },
  );

  it("calls the hub's management service in-process: no loopback request reaches the management API", async () => {
    const c = await connect('t7');
    hub.managementTenants.length = 0;
    const lines = hub.running.logs.length;
    const res = await subscribe(hub.url, await userToken('t7'), { connectionId: c.connectionId, deviceId: 'hop' });
    expect(res.status).toBe(204);
    // Its owner group (joined on connect, see negotiate) and the device group, nothing else.
    expect(hub.running.app.telemetry.hub.groupsOf(c.connectionId)).toEqual(['owner:t7:user-t7', 'device:t7:hop']);
    expect(hub.managementTenants).toEqual([]);
    const requests = hub.running.logs.slice(lines).filter((l) => l['msg'] === 'request');
    expect(requests.map((l) => l['route'])).toEqual(['/api/subscribe']);
  });

  it('accepts the own tenant named explicitly', async () => {
    const c = await connect('t1');
    const res = await subscribe(hub.url, await userToken('t1'), {
      connectionId: c.connectionId,
      deviceId: 'named',
      tenantId: 't1',
    });
    expect(res.status).toBe(204);
  });
});

describe('POST /api/subscribe refusals', () => {
  it('401 without a token or with an invalid one, before looking at the body', async () => {
    const none = await subscribe(hub.url, undefined, { connectionId: 'x', deviceId: 'd' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(await problemOf(none)).toMatchObject({ code: 'HUB_ERR_AUTH_UNAUTHENTICATED', instance: '/api/subscribe' });

    const forged = await subscribe(hub.url, `${await userToken('t1')}x`, 'not json');
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await problemOf(forged)).toMatchObject({ code: 'HUB_ERR_AUTH_INVALID_TOKEN' });
  });

  it.each([
    ['not JSON', '{"connectionId":'],
    ['an array', '[]'],
    ['no connectionId', { deviceId: 'd1' }],
    ['an empty connectionId', { connectionId: '', deviceId: 'd1' }],
    ['no deviceId', { connectionId: 'abc' }],
    ['a bad deviceId', { connectionId: 'abc', deviceId: '../d1' }],
    ['a bad tenantId', { connectionId: 'abc', deviceId: 'd1', tenantId: 'a:b' }],
  ])('400 FUNC_BAD_BODY for %s', async (_what, body) => {
    // Its own user: the 'functions' rate limit is per user.
    const res = await subscribe(hub.url, await userToken('t1', { sub: 'bad-bodies' }), body);
    expect(res.status).toBe(400);
    const p = await problemOf(res);
    expect(p).toMatchObject({ status: 400, code: 'HUB_ERR_FUNC_BAD_BODY' });
    expect(typeof p['traceId']).toBe('string');
  });

  it("403 for another tenant's device, whatever the connection; the group stays untouched", async () => {
    const c = await connect('t2');
    const res = await subscribe(hub.url, await userToken('t2'), {
      connectionId: c.connectionId,
      deviceId: 'd1',
      tenantId: 't1',
    });
    expect(res.status).toBe(403);
    expect(await problemOf(res)).toMatchObject({ code: 'HUB_ERR_AUTH_FORBIDDEN' });
    expect(hub.running.app.telemetry.hub.groupsOf(c.connectionId)).toEqual(['owner:t2:user-t2']);
    // Even an admin stays in its own tenant.
    const admin = await subscribe(hub.url, await userToken('t2', { roles: ['admin'] }), {
      connectionId: c.connectionId,
      deviceId: 'd1',
      tenantId: 't1',
    });
    expect(admin.status).toBe(403);
  });

  it('404 for an unknown connection, and for one that has gone', async () => {
    const token = await userToken('t1');
    const unknown = await subscribe(hub.url, token, { connectionId: 'no-such-connection', deviceId: 'd1' });
    expect(unknown.status).toBe(404);
    expect(await problemOf(unknown)).toMatchObject({ code: 'HUB_ERR_FUNC_UNKNOWN_CONNECTION' });

    const c = await connect('t1');
    c.client.stop();
    await eventually(() => !hub.running.app.telemetry.hub.hasConnection(c.connectionId), 5000, 'connection gone');
    const gone = await subscribe(hub.url, token, { connectionId: c.connectionId, deviceId: 'd1' });
    expect(gone.status).toBe(404);
  });
});
