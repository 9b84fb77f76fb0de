import { WebPubSubServiceClient } from '@azure/web-pubsub';
import { HubOutboundMessage } from '../../src/wire/outbound-message.js';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { connectDevice } from '../support/mqtt-device.js';

/** Every event a socket.io client receives, in order, as [name, ...args]. */
function record(socket: Socket): unknown[][] {
  const events: unknown[][] = [];
  socket.onAny((event: string, ...args: unknown[]) => events.push([event, ...args]));
  return events;
}

describe('socket.io wire forms of every hub message kind (official socket.io-client)', () => {
  let hub: RunningApp;
  let service: WebPubSubServiceClient;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000']);
    service = new WebPubSubServiceClient(
      `Endpoint=${hub.url};AccessKey=${hub.app.config.hub.accessKey};Version=1.0;`,
      hub.app.config.hub.name,
      {
        allowInsecureConnection: true,
        retryOptions: { maxRetries: 0 },
      },
    );
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    await hub?.stop();
  });

  async function subscribed(tenant: string, deviceId: string): Promise<{ socket: Socket; events: unknown[][] }> {
    const socket = await connectTelemetry(hub.url, await userToken(tenant));
    sockets.push(socket);
    const events = record(socket);
    expect(await socket.emitWithAck('subscribe', { deviceId })).toMatchObject({ ok: true });
    return { socket, events };
  }

  it('management sends arrive as `message` events, JSON, text and binary, never as readings', async () => {
    const { socket, events } = await subscribed('wire', 'dev1');
    const group = 'device:wire:dev1';
    // JSON shaped like a Reading is a management message unless it is exactly a Reading of the group's device.
    const lookalike = { tenantId: 'wire', deviceId: 'dev1', seq: 99, ts: 1, receivedAt: 1, data: { fake: true } };
    const otherDevice = { ...lookalike, deviceId: 'dev9' };
    const extraField = { ...lookalike, note: 'not a reading' };
    const bytes = Buffer.from([0, 1, 2, 250, 255]);

    await service.group(group).sendToAll({ hello: 'group', n: [1, null] });
    await service.group(group).sendToAll('plain text', { contentType: 'text/plain' });
    await service.group(group).sendToAll(bytes);
    await service.group(group).sendToAll(otherDevice);
    await service.group(group).sendToAll(extraField);
    await service.sendToAll({ to: 'everyone' });
    await service.sendToConnection(socket.id!, 'just you', { contentType: 'text/plain' });
    await service.sendToConnection(socket.id!, Buffer.from('bin'));
    await service.sendToUser('user-wire', lookalike);

    await eventually(() => events.length === 9, 5000, 'nine messages');
    expect(events).toEqual([
      ['message', { from: 'group', group, dataType: 'json', data: { hello: 'group', n: [1, null] } }],
      ['message', { from: 'group', group, dataType: 'text', data: 'plain text' }],
      ['message', { from: 'group', group, dataType: 'binary', data: bytes }],
      ['message', { from: 'group', group, dataType: 'json', data: otherDevice }],
      ['message', { from: 'group', group, dataType: 'json', data: extraField }],
      ['message', { from: 'server', dataType: 'json', data: { to: 'everyone' } }],
      ['message', { from: 'server', dataType: 'text', data: 'just you' }],
      ['message', { from: 'server', dataType: 'binary', data: Buffer.from('bin') }],
      ['message', { from: 'server', dataType: 'json', data: lookalike }],
    ]);
    // Binary data is a binary attachment: the client hands over bytes, not base64 or a parse error.
    expect(Buffer.isBuffer((events[2]![1] as { data: unknown }).data)).toBe(true);
  });

  it("a management send of a Reading of the group's own device is a reading (the serverless telemetryToGroups path)", async () => {
    const { events } = await subscribed('wire', 'dev5');
    const reading = {
      tenantId: 'wire',
      deviceId: 'dev5',
      seq: 7,
      ts: 1763800000000,
      receivedAt: 1763800000004,
      data: { t: 1 },
    };
    await service.group('device:wire:dev5').sendToAll(reading);
    await eventually(() => events.length === 1, 5000, 'the reading');
    expect(events).toEqual([['reading', reading]]);
  });

  it('a device reading still arrives as a `reading` event with the Reading', async () => {
    const { events } = await subscribed('wire', 'dev2');
    const device = await connectDevice(hub.brokerUrl!, 'wire', 'dev2');
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
    await device.publishAsync('tenants/wire/devices/dev2/telemetry', JSON.stringify({ ts: 1763800000000, t: 21.5 }), {
      qos: 1,
    });
    await eventually(() => events.length === 1, 5000, 'the reading');
    expect(events[0]).toEqual([
      'reading',
      {
        tenantId: 'wire',
        deviceId: 'dev2',
        seq: expect.any(Number),
        ts: 1763800000000,
        receivedAt: expect.any(Number),
        data: { t: 21.5 },
      },
    ]);
    await device.endAsync();
  });

  it('a connection closed by the management API gets `hub_closed` { reason: "kicked" } and is disconnected', async () => {
    const { socket, events } = await subscribed('wire', 'dev3');
    const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    await service.closeConnection(socket.id!);
    expect(await disconnected).toBe('io server disconnect');
    expect(events).toEqual([['hub_closed', { reason: 'kicked' }]]);
  });

  it('a client more than 1000 messages behind gets `hub_closed` { reason: "policy" } after the ones already written', async () => {
    const { socket, events } = await subscribed('wire', 'dev4');
    const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    // Sent in one go: no write can complete in between. The socket's stream takes what fits under its
    // high-water mark (written), the outbox holds the rest, so 3000 leaves well over 1000 waiting.
    for (let n = 0; n < 3000; n++)
      hub.app.telemetry.hub.sendToConnection(socket.id!, new HubOutboundMessage({ kind: 'server' }, 'json', { n }));
    expect(await disconnected).toBe('io server disconnect');
    const last = events.at(-1);
    const messages = events.slice(0, -1);
    expect(last).toEqual(['hub_closed', { reason: 'policy' }]);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.length).toBeLessThan(3000);
    expect(messages).toEqual(messages.map((_, n) => ['message', { from: 'server', dataType: 'json', data: { n } }]));
  });
});
