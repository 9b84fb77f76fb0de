import { WebPubSubServiceClient } from '@azure/web-pubsub';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { userToken } from '../../../support/app-harness.js';
import {
  connectClient,
  startServerlessApp,
  subscribe,
  type ServerlessApp,
  type Subscriber,
} from '../../../features/serverless/serverless-harness.js';

// Issue 12 item 6: /api/subscribe acts only on the caller's own connection. Someone else's
// connection id gets the same 404 as an unknown one, and nothing is added.

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

async function connectAs(tenant: string, sub: string): Promise<Subscriber> {
  const c = await connectClient(hub.url, await userToken(tenant, { sub }), false);
  clients.push(c);
  return c;
}

function deviceGroupsOf(connectionId: string): string[] {
  return hub.running.app.telemetry.hub.groupsOf(connectionId).filter((g) => g.startsWith('device:'));
}

describe('POST /api/subscribe with a connection id', () => {
  it('of another user of the same tenant: 404, and that connection joins nothing', async () => {
    const bob = await connectAs('t1', 'bob');
    const res = await subscribe(hub.url, await userToken('t1', { sub: 'mallory' }), {
      connectionId: bob.connectionId,
      deviceId: 'd1',
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { code: string }).code).toBe('HUB_ERR_FUNC_UNKNOWN_CONNECTION');
    expect(deviceGroupsOf(bob.connectionId)).toEqual([]);
  });

  it('of a user with the same sub in another tenant: 404', async () => {
    const other = await connectAs('t2', 'alice');
    const res = await subscribe(hub.url, await userToken('t1', { sub: 'alice' }), {
      connectionId: other.connectionId,
      deviceId: 'd1',
    });
    expect(res.status).toBe(404);
    expect(deviceGroupsOf(other.connectionId)).toEqual([]);
  });

  it("of the caller itself: 204, and only that connection joins (not the user's other connections)", async () => {
    const tab1 = await connectAs('t1', 'carol');
    const tab2 = await connectAs('t1', 'carol');
    const res = await subscribe(hub.url, await userToken('t1', { sub: 'carol' }), {
      connectionId: tab1.connectionId,
      deviceId: 'd9',
    });
    expect(res.status).toBe(204);
    expect(deviceGroupsOf(tab1.connectionId)).toEqual(['device:t1:d9']);
    expect(deviceGroupsOf(tab2.connectionId)).toEqual([]);
  });
});

describe("the management API's list of a group's connections (what subscribe checks ownership with)", () => {
  it('answers the official client with each member and its user id', async () => {
    const dave = await connectAs('t3', 'dave');
    const service = new WebPubSubServiceClient(
      `Endpoint=${hub.url};AccessKey=${hub.accessKey};Version=1.0;`,
      'telemetry',
      { allowInsecureConnection: true },
    );
    const members = [];
    for await (const m of await service.group('owner:t3:dave').listConnections()) members.push(m);
    expect(members).toEqual([{ connectionId: dave.connectionId, userId: 'dave' }]);
  });
});
