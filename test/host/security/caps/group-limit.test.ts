import { SendMessageError } from '@azure/web-pubsub-client';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, startApp, userToken, type RunningApp } from '../../../support/app-harness.js';
import { startOfficialClient, type Subscriber } from '../../../support/web-pubsub-client.js';
import { clientUrl, management } from './caps-support.js';

// Hub:MaxGroupsPerConnection: a join/subscribe beyond it is refused with HUB_ERR_HUB_LIMIT, on every path.
let running: RunningApp;
const sockets: Socket[] = [];
const clients: Subscriber[] = [];

beforeAll(async () => {
  running = await startApp(['--Hub:MaxGroupsPerConnection=3']);
});

afterAll(async () => {
  for (const s of sockets) s.close();
  for (const c of clients) c.client.stop();
  await running.stop();
});

describe('Hub:MaxGroupsPerConnection', () => {
  it('socket.io: a subscribe past the limit is acked HUB_ERR_HUB_LIMIT; leaving one makes room', async () => {
    const socket = await connectTelemetry(running.url, await userToken('t1'));
    sockets.push(socket);
    for (const d of ['d1', 'd2', 'd3'])
      expect(await socket.emitWithAck('subscribe', { deviceId: d })).toMatchObject({ ok: true });
    // A device already followed stays followed: subscribing again is not a new group.
    expect(await socket.emitWithAck('subscribe', { deviceId: 'd2' })).toMatchObject({ ok: true });
    const refused = (await socket.emitWithAck('subscribe', { deviceId: 'd4' })) as {
      ok: boolean;
      error: { code: string; message: string };
    };
    expect(refused).toMatchObject({ ok: false, error: { code: 'HUB_ERR_HUB_LIMIT' } });
    expect(refused.error.message).toMatch(/at most 3/);
    expect(running.app.telemetry.hub.groupsOf(socket.id!)).toHaveLength(3);

    expect(await socket.emitWithAck('unsubscribe', { deviceId: 'd1' })).toEqual({ ok: true });
    expect(await socket.emitWithAck('subscribe', { deviceId: 'd4' })).toMatchObject({ ok: true });
  });

  it('Web PubSub: joinGroup and the subscribe event past the limit are acked with an error', async () => {
    const c = await startOfficialClient(
      await clientUrl(running, { userId: 'u1', tenantId: 't1', roles: ['webpubsub.joinLeaveGroup'] }),
      false,
    );
    clients.push(c);
    for (const g of ['g1', 'g2', 'g3']) await c.client.joinGroup(g);
    const error = await c.client.joinGroup('g4').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendMessageError);
    expect((error as SendMessageError).errorDetail?.name).toBe('Forbidden');
    expect((error as SendMessageError).errorDetail?.message).toMatch(/HUB_ERR_HUB_LIMIT/);
    const event = await c.client.sendEvent('subscribe', { deviceId: 'd9' }, 'json').catch((e: unknown) => e);
    expect((event as SendMessageError).errorDetail?.message).toMatch(/HUB_ERR_HUB_LIMIT/);
    expect(running.app.telemetry.hub.groupsOf(c.connectionId)).toEqual(['g1', 'g2', 'g3']);
  });

  it('management API: adding a connection to a group past the limit is a 429 problem HUB_ERR_HUB_LIMIT', async () => {
    const c = await startOfficialClient(await clientUrl(running, { userId: 'u2', tenantId: 't1' }), false);
    clients.push(c);
    for (const g of ['m1', 'm2', 'm3']) {
      expect((await management(running, 'PUT', `/groups/${g}/connections/${c.connectionId}`)).status).toBe(200);
    }
    const res = await management(running, 'PUT', `/groups/m4/connections/${c.connectionId}`);
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await res.json()).toMatchObject({ status: 429, code: 'HUB_ERR_HUB_LIMIT' });
    expect(running.app.telemetry.hub.groupsOf(c.connectionId)).toHaveLength(3);

    // The subscribe function says the same, for the caller's own negotiated connection (whose
    // owner group counts towards the cap too: owner + 2 groups fills 3).
    const token = await userToken('t1');
    const negotiated = (await (
      await fetch(`${running.url}/api/negotiate`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
    ).json()) as { url: string };
    const own = await startOfficialClient(negotiated.url, false);
    clients.push(own);
    const subscribe = (deviceId: string) =>
      fetch(`${running.url}/api/subscribe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ connectionId: own.connectionId, deviceId }),
      });
    for (const d of ['d5', 'd6']) expect((await subscribe(d)).status).toBe(204);
    const viaFunction = await subscribe('d7');
    expect(viaFunction.status).toBe(429);
    expect(await viaFunction.json()).toMatchObject({ status: 429, code: 'HUB_ERR_HUB_LIMIT' });
  });
});
