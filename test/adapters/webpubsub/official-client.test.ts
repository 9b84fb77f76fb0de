import { SendMessageError, type WebPubSubClient } from '@azure/web-pubsub-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HubOutboundMessage } from '../../../src/wire/outbound-message.js';
import type { Reading } from '../../../src/wire/reading.js';
import { webPubSubJsonCodec } from '../../../src/wire/webpubsub/message-codec.js';
import { startOfficialClient, type Subscriber } from '../../support/web-pubsub-client.js';
import { eventually, reading, startHarness, type Harness } from './harness.js';

type Started = Subscriber;

let h: Harness;
const clients: WebPubSubClient[] = [];
const lastReadings = new Map<string, Reading>();

beforeEach(async () => {
  lastReadings.clear();
  h = await startHarness({ lastReading: (t, d) => lastReadings.get(`${t}/${d}`) });
});

afterEach(async () => {
  for (const c of clients.splice(0)) c.stop();
  await h.close();
});

async function start(
  reliable: boolean,
  claims: Parameters<Harness['clientUrl']>[0] = { userId: 'u1', tenantId: 'demo' },
): Promise<Started> {
  const started = await startOfficialClient(await h.clientUrl(claims), reliable);
  clients.push(started.client);
  return started;
}

describe.each([
  ['json.webpubsub.azure.v1', false],
  ['json.reliable.webpubsub.azure.v1', true],
])('official WebPubSubClient over %s', (_name, reliable) => {
  it('connects, joins its own tenant device group and receives readings', async () => {
    const c = await start(reliable);
    expect(c.userId).toBe('u1');
    expect(h.hub.hasConnection(c.connectionId)).toBe(true);

    await c.client.joinGroup('device:demo:dev-1');
    h.hub.publishReading(reading('dev-1', 1));
    h.hub.publishReading(reading('dev-2', 1)); // not joined
    h.hub.publishReading(reading('dev-1', 2));

    await eventually(() => c.group.length >= 2);
    expect(c.group.map((m) => [m.group, m.dataType, m.data])).toEqual([
      [
        'device:demo:dev-1',
        'json',
        {
          tenantId: 'demo',
          deviceId: 'dev-1',
          seq: 1,
          ts: reading('dev-1', 1).ts,
          receivedAt: reading('dev-1', 1).receivedAt,
          data: { temperature: 21 },
        },
      ],
      [
        'device:demo:dev-1',
        'json',
        {
          tenantId: 'demo',
          deviceId: 'dev-1',
          seq: 2,
          ts: reading('dev-1', 2).ts,
          receivedAt: reading('dev-1', 2).receivedAt,
          data: { temperature: 22 },
        },
      ],
    ]);
    if (reliable) expect(c.group.map((m) => m.sequenceId)).toEqual([1, 2]);
    else expect(c.group[0]!.sequenceId).toBeUndefined();
  });

  it('refuses another tenant device group with a Forbidden ack, allows it with the role', async () => {
    const c = await start(reliable);
    const error = await c.client.joinGroup('device:other:dev-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SendMessageError);
    expect((error as SendMessageError).errorDetail?.name).toBe('Forbidden');
    h.hub.publishReading(reading('dev-1', 1, 'other'));

    const admin = await start(reliable, {
      userId: 'ops',
      tenantId: 'demo',
      roles: ['webpubsub.joinLeaveGroup.device:other:dev-1'],
    });
    await admin.client.joinGroup('device:other:dev-1');
    h.hub.publishReading(reading('dev-1', 2, 'other'));
    await eventually(() => admin.group.length === 1);
    expect(c.group).toEqual([]);
    expect(h.hub.groupsOf(c.connectionId)).toEqual([]);
  });

  it('joins the token webpubsub.group groups on connect', async () => {
    const c = await start(reliable, { userId: 'u2', groups: ['device:demo:dev-7'] });
    h.hub.publishReading(reading('dev-7', 1));
    await eventually(() => c.group.length === 1);
    expect(h.hub.groupsOf(c.connectionId)).toEqual(['device:demo:dev-7']);
  });

  it('subscribes with the hub method: ack, then the last reading as a server message, then live readings', async () => {
    lastReadings.set('demo/dev-9', reading('dev-9', 41));
    const c = await start(reliable);
    const result = await c.client.sendEvent('subscribe', { deviceId: 'dev-9' }, 'json');
    expect(result.isDuplicated).toBe(false);
    h.hub.publishReading(reading('dev-9', 42));
    await eventually(() => c.server.length === 1 && c.group.length === 1);
    expect(c.server[0]).toMatchObject({ dataType: 'json', data: { deviceId: 'dev-9', seq: 41 } });
    expect(c.group[0]).toMatchObject({ group: 'device:demo:dev-9', data: { seq: 42 } });

    const bad = await c.client.sendEvent('subscribe', { deviceId: '../x' }, 'json').catch((e: unknown) => e);
    expect((bad as SendMessageError).errorDetail?.name).toBe('BadRequest');
    const noTenant = await start(reliable, { userId: 'anon' });
    const refused = await noTenant.client
      .sendEvent('subscribe', { deviceId: 'dev-9' }, 'json')
      .catch((e: unknown) => e);
    expect((refused as SendMessageError).errorDetail?.name).toBe('Forbidden');
  });

  it('publishes to a group with the role, honouring noEcho', async () => {
    const roles = ['webpubsub.joinLeaveGroup.chat', 'webpubsub.sendToGroup.chat'];
    const a = await start(reliable, { userId: 'a', roles });
    const b = await start(reliable, { userId: 'b', roles });
    await a.client.joinGroup('chat');
    await b.client.joinGroup('chat');
    await a.client.sendToGroup('chat', 'hello', 'text', { noEcho: true });
    await a.client.sendToGroup('chat', { n: 2 }, 'json');
    await eventually(() => b.group.length === 2 && a.group.length === 1);
    expect(b.group.map((m) => m.data)).toEqual(['hello', { n: 2 }]);
    expect(a.group.map((m) => m.data)).toEqual([{ n: 2 }]);
    const denied = await b.client.sendToGroup('device:demo:dev-1', 'x', 'text').catch((e: unknown) => e);
    expect((denied as SendMessageError).errorDetail?.name).toBe('Forbidden');
  });
});

describe('reliable recovery with the official client', () => {
  it('resends what was sent while the socket was gone, after the automatic reconnect', async () => {
    const c = await start(true);
    await c.client.joinGroup('device:demo:dev-1');
    h.hub.publishReading(reading('dev-1', 1));
    await eventually(() => c.group.length === 1);

    // The network drops: the server cuts the socket but keeps the session.
    expect(h.endpoint.terminateSocket(c.connectionId)).toBe(true);
    h.hub.publishReading(reading('dev-1', 2));
    h.hub.publishReading(reading('dev-1', 3));
    expect(h.hub.hasConnection(c.connectionId)).toBe(true);

    await eventually(() => c.group.length === 3);
    expect(c.group.map((m) => (m.data as Reading).seq)).toEqual([1, 2, 3]);
    expect(c.group.map((m) => m.sequenceId)).toEqual([1, 2, 3]);
    // The same session: same connection id, no second `connected` event, still in its group.
    expect(c.connectedEvents).toBe(1);
    expect(h.endpoint.connection(c.connectionId)?.socket).toBeDefined();
    h.hub.publishReading(reading('dev-1', 4));
    await eventually(() => c.group.length === 4);
    // The client acknowledges (every second): the resend buffer empties.
    await eventually(() => h.endpoint.connection(c.connectionId)?.unacknowledged === 0, 4000);
  });
});

describe('encode once', () => {
  it('serializes a group message once for many connections of both protocols', async () => {
    const started = await Promise.all([false, false, false, true, true, true].map((r) => start(r)));
    for (const c of started) await c.client.joinGroup('device:demo:fan');
    const spy = vi.spyOn(webPubSubJsonCodec, 'encode');
    try {
      h.hub.sendToGroup(
        'device:demo:fan',
        new HubOutboundMessage({ kind: 'group', group: 'device:demo:fan' }, 'json', { n: 1 }),
      );
      await eventually(() => started.every((c) => c.group.length === 1));
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
    }
  });
});
