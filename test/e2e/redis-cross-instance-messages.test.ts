import { WebPubSubServiceClient } from '@azure/web-pubsub';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, type Subscriber } from '../features/serverless/serverless-harness.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { requireService } from '../support/services.js';

const run = `${process.pid}${Date.now().toString(36)}`;
const TENANT = 'xi';
const GROUP = `device:${TENANT}:d1`;
const USER = `user-${TENANT}`;

/** One instance's pair of clients, and everything each received, in order. */
interface Clients {
  socketIo: Socket;
  socketIoEvents: unknown[][];
  webPubSub: Subscriber;
  webPubSubMessages: unknown[];
}

async function clientsOn(app: RunningApp): Promise<Clients> {
  const token = await userToken(TENANT);
  const socketIo = await connectTelemetry(app.url, token);
  const socketIoEvents: unknown[][] = [];
  socketIo.onAny((event: string, ...args: unknown[]) => socketIoEvents.push([event, ...args]));
  expect(await socketIo.emitWithAck('subscribe', { deviceId: 'd1' })).toMatchObject({ ok: true });
  const webPubSub = await connectClient(app.url, token, false);
  const webPubSubMessages: unknown[] = [];
  // Both kinds in one list, so order across them is compared too; bytes as Buffers to compare content.
  const keep = (m: { data: unknown }) =>
    webPubSubMessages.push({ ...m, data: m.data instanceof ArrayBuffer ? Buffer.from(m.data) : m.data });
  webPubSub.client.on('group-message', (e) => keep(e.message));
  webPubSub.client.on('server-message', (e) => keep(e.message));
  await webPubSub.client.joinGroup(GROUP);
  return { socketIo, socketIoEvents, webPubSub, webPubSubMessages };
}

describe('management sends across two instances over real Redis', () => {
  let available = false;
  const apps: RunningApp[] = [];
  const clients: Clients[] = [];

  beforeAll(async () => {
    available = await requireService('Redis', 6379);
    if (!available) return;
    for (let i = 0; i < 2; i++)
      apps.push(await startApp(['--ConnectionStrings:redis=redis://127.0.0.1:6379', `--Hub:Name=xi${run}`]));
  });

  afterAll(async () => {
    for (const c of clients) {
      c.socketIo.close();
      c.webPubSub.client.stop();
    }
    for (const app of apps) await app.stop();
  });

  it('reach socket.io and Web PubSub clients on the other instance exactly as local ones', async ({ skip }) => {
    if (!available) return skip();
    const [a, b] = apps as [RunningApp, RunningApp];
    const onA = await clientsOn(a);
    const onB = await clientsOn(b);
    clients.push(onA, onB);
    const service = new WebPubSubServiceClient(
      `Endpoint=${a.url};AccessKey=${a.app.config.hub.accessKey};Version=1.0;`,
      `xi${run}`,
      {
        allowInsecureConnection: true,
        retryOptions: { maxRetries: 0 },
      },
    );
    const bytes = Buffer.from([0, 1, 104, 105, 255]);
    // User JSON that an encoding of bytes could be mistaken for.
    const lookalike = { $b64: 'aGk=', type: 'Buffer', data: [104, 105] };

    // What the serverless telemetryToGroups function sends: a Reading of the group's device.
    const reading = {
      tenantId: TENANT,
      deviceId: 'd1',
      seq: 5,
      ts: 1763800000000,
      receivedAt: 1763800000004,
      data: { t: 2 },
    };

    const group = service.group(GROUP);
    await group.sendToAll(reading);
    await group.sendToAll({ g: 1 });
    await group.sendToAll('group text', { contentType: 'text/plain' });
    await group.sendToAll(bytes);
    await group.sendToAll(lookalike);
    await service.sendToAll({ all: true });
    await service.sendToAll(bytes);
    await service.sendToUser(USER, 'user text', { contentType: 'text/plain' });
    await service.sendToUser(USER, lookalike);
    for (const c of [onA, onB]) {
      await service.sendToConnection(c.socketIo.id!, 'just you', { contentType: 'text/plain' });
      await service.sendToConnection(c.socketIo.id!, bytes);
      await service.sendToConnection(c.webPubSub.connectionId, 'just you', { contentType: 'text/plain' });
      await service.sendToConnection(c.webPubSub.connectionId, bytes);
    }
    // A last message to everyone: once it arrived, everything before it did (one ordered stream each).
    await service.sendToAll('end', { contentType: 'text/plain' });
    const ended = (c: Clients) =>
      c.socketIoEvents.some((e) => (e[1] as { data?: unknown } | undefined)?.data === 'end') &&
      c.webPubSubMessages.some((m) => (m as { data?: unknown }).data === 'end');
    await eventually(() => ended(onA) && ended(onB), 5000, 'the last message on both instances');

    expect(onA.socketIoEvents).toEqual([
      ['reading', reading],
      ['message', { from: 'group', group: GROUP, dataType: 'json', data: { g: 1 } }],
      ['message', { from: 'group', group: GROUP, dataType: 'text', data: 'group text' }],
      ['message', { from: 'group', group: GROUP, dataType: 'binary', data: bytes }],
      ['message', { from: 'group', group: GROUP, dataType: 'json', data: lookalike }],
      ['message', { from: 'server', dataType: 'json', data: { all: true } }],
      ['message', { from: 'server', dataType: 'binary', data: bytes }],
      ['message', { from: 'server', dataType: 'text', data: 'user text' }],
      ['message', { from: 'server', dataType: 'json', data: lookalike }],
      ['message', { from: 'server', dataType: 'text', data: 'just you' }],
      ['message', { from: 'server', dataType: 'binary', data: bytes }],
      ['message', { from: 'server', dataType: 'text', data: 'end' }],
    ]);
    expect(onB.socketIoEvents).toEqual(onA.socketIoEvents);
    expect(onA.webPubSubMessages).toHaveLength(12);
    expect(onA.webPubSubMessages.slice(0, 5)).toEqual([
      { kind: 'groupData', type: 'message', from: 'group', group: GROUP, dataType: 'json', data: reading },
      { kind: 'groupData', type: 'message', from: 'group', group: GROUP, dataType: 'json', data: { g: 1 } },
      { kind: 'groupData', type: 'message', from: 'group', group: GROUP, dataType: 'text', data: 'group text' },
      { kind: 'groupData', type: 'message', from: 'group', group: GROUP, dataType: 'binary', data: bytes },
      { kind: 'groupData', type: 'message', from: 'group', group: GROUP, dataType: 'json', data: lookalike },
    ]);
    expect(onB.webPubSubMessages).toEqual(onA.webPubSubMessages);
  });
});
