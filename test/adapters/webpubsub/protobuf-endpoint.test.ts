import { WebPubSubServiceClient } from '@azure/web-pubsub';
import { afterEach, describe, expect, it } from 'vitest';
import { HubOutboundMessage } from '../../../src/wire/outbound-message.js';
import { AnyMessage } from '../../../src/wire/webpubsub/protobuf-schema.js';
import { ACCESS_KEY, eventually, HUB_NAME, reading, startHarness, type Harness } from './harness.js';
import { ackOf, isConnected, openProtobuf, type Downstream, type ProtobufClient } from './protobuf-client.js';
import { openRaw, type RawClient } from './raw-client.js';

const PROTOBUF = 'protobuf.webpubsub.azure.v1';
const JSON_PROTOCOL = 'json.webpubsub.azure.v1';

let h: Harness | undefined;
const clients: Array<ProtobufClient | RawClient> = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.ws.terminate();
  await h?.close();
  h = undefined;
});

type Claims = Parameters<Harness['clientUrl']>[0];

async function protobufClient(
  harness: Harness,
  claims: Claims = { userId: 'u', tenantId: 'demo' },
): Promise<ProtobufClient> {
  const client = await openProtobuf(await harness.clientUrl(claims), PROTOBUF);
  clients.push(client);
  await client.next(isConnected);
  return client;
}

async function jsonClient(harness: Harness, claims: Claims): Promise<RawClient> {
  const client = await openRaw(await harness.clientUrl(claims), JSON_PROTOCOL);
  clients.push(client);
  await client.next((f) => f['event'] === 'connected');
  return client;
}

/** A google.protobuf.Any packing a message with `int32 value = 1` set to 1, as the service's docs do. */
const ANY = { type_url: 'type.googleapis.com/azure.webpubsub.TestMessage', value: Buffer.from([0x08, 0x01]) };
const ANY_BYTES = Buffer.from(AnyMessage.encode(AnyMessage.fromObject(ANY)).finish());

const ack = (f: Downstream) =>
  f['ackMessage'] as { ackId: number; success: boolean; error?: { name: string; message: string } };
const dataMessage = (f: Downstream) =>
  f['dataMessage'] as { from: string; group?: string; data: Record<string, unknown>; sequenceId?: number };

describe('protobuf.webpubsub.azure.v1', () => {
  it('is selected, and starts with a connected system message in a binary frame', async () => {
    h = await startHarness();
    const c = await openProtobuf(await h.clientUrl({ userId: 'alice', tenantId: 'demo' }), PROTOBUF);
    clients.push(c);
    expect(c.ws.protocol).toBe(PROTOBUF);
    const connected = (await c.next(isConnected))['systemMessage']['connectedMessage'];
    expect(connected).toMatchObject({ userId: 'alice' });
    expect(typeof connected.connectionId).toBe('string');
    // The plain subprotocol has no recovery: no reconnection token.
    expect(connected.reconnectionToken ?? '').toBe('');
    expect(c.binary).toEqual([true]);
    expect(h.hub.hasConnection(connected.connectionId as string)).toBe(true);
  });

  it('joins a group with an ack, answers a repeated ackId with Duplicate, and ping with pong', async () => {
    h = await startHarness();
    const c = await protobufClient(h);
    c.send({ joinGroupMessage: { group: 'device:demo:d1', ackId: 7 } });
    c.send({ joinGroupMessage: { group: 'device:demo:d1', ackId: 7 } });
    await eventually(() => c.frames.filter((f) => f['message'] === 'ackMessage').length === 2);
    expect(c.frames.filter((f) => f['message'] === 'ackMessage').map(ack)).toMatchObject([
      { ackId: 7, success: true },
      { ackId: 7, success: false, error: { name: 'Duplicate', message: 'Message with ack-id: 7 has been processed.' } },
    ]);
    const id = c.frames[0]!['systemMessage']['connectedMessage']['connectionId'] as string;
    expect(h.hub.groupsOf(id)).toEqual(['device:demo:d1']);

    c.send({ pingMessage: {} });
    await c.next((f) => f['message'] === 'pongMessage');

    c.send({ leaveGroupMessage: { group: 'device:demo:d1', ackId: 8 } });
    expect(ack(await c.next(ackOf(8)))).toMatchObject({ success: true });
    expect(h.hub.groupsOf(id)).toEqual([]);
  });

  it('keeps to tenants: another tenant device group is refused with Forbidden', async () => {
    h = await startHarness();
    const c = await protobufClient(h);
    c.send({ joinGroupMessage: { group: 'device:other:d1', ackId: 1 } });
    expect(ack(await c.next(ackOf(1)))).toMatchObject({
      success: false,
      error: {
        name: 'Forbidden',
        message: "The connection has no permission to join or leave group 'device:other:d1'.",
      },
    });
    // The subscribe event names a device of the token's own tenant only.
    c.send({ eventMessage: { event: 'subscribe', data: { textData: '{"deviceId":"d1"}' }, ackId: 2 } });
    await c.next(ackOf(2));
    const id = c.frames[0]!['systemMessage']['connectedMessage']['connectionId'] as string;
    expect(h.hub.groupsOf(id)).toEqual(['device:demo:d1']);
  });

  it('subscribes with the subscribe event: ack, the last reading as a server message, then readings as group messages (JSON as text_data)', async () => {
    const last = reading('d1', 4);
    h = await startHarness({
      lastReading: (tenantId, deviceId) => (tenantId === 'demo' && deviceId === 'd1' ? last : undefined),
    });
    const c = await protobufClient(h);
    c.send({ eventMessage: { event: 'subscribe', data: { textData: JSON.stringify({ deviceId: 'd1' }) }, ackId: 1 } });
    await c.next(ackOf(1));
    h.hub.publishReading(reading('d1', 5));
    await eventually(() => c.data().length === 2);
    const [snapshot, live] = c.data().map(dataMessage);
    expect(snapshot).toMatchObject({ from: 'server', data: { data: 'textData' } });
    expect(snapshot!.group ?? '').toBe('');
    expect(JSON.parse(snapshot!.data['textData'] as string)).toEqual({
      tenantId: 'demo',
      deviceId: 'd1',
      seq: 4,
      ts: last.ts,
      receivedAt: last.receivedAt,
      data: last.data,
    });
    expect(live).toMatchObject({ from: 'group', group: 'device:demo:d1' });
    expect(JSON.parse(live!.data['textData'] as string)).toMatchObject({
      deviceId: 'd1',
      seq: 5,
      data: { temperature: 25 },
    });

    // json_data (how the service's own protobuf SDKs send JSON) works the same.
    c.send({ eventMessage: { event: 'subscribe', data: { jsonData: '{"deviceId":"d2"}' }, ackId: 4 } });
    expect(ack(await c.next(ackOf(4)))).toMatchObject({ success: true });

    // A bad device id is a BadRequest ack, as over JSON.
    c.send({ eventMessage: { event: 'subscribe', data: { textData: '{"deviceId":"../x"}' }, ackId: 2 } });
    expect(ack(await c.next(ackOf(2)))).toMatchObject({ success: false, error: { name: 'BadRequest' } });
    c.send({ eventMessage: { event: 'other', data: { textData: 'x' }, ackId: 3 } });
    expect(ack(await c.next(ackOf(3)))).toMatchObject({ success: false, error: { name: 'NotFound' } });
  });

  it('publishes binary, protobuf, text and JSON data that JSON and protobuf members receive as the service maps them', async () => {
    h = await startHarness();
    const group = 'chat';
    const publisher = await protobufClient(h, {
      userId: 'p',
      roles: [`webpubsub.sendToGroup.${group}`],
      groups: [group],
    });
    const pbMember = await protobufClient(h, { userId: 'm', groups: [group] });
    const jsonMember = await jsonClient(h, { userId: 'j', groups: [group] });

    publisher.send({
      sendToGroupMessage: { group, data: { binaryData: Buffer.from([1, 2, 3]) }, ackId: 1, noEcho: true },
    });
    publisher.send({ sendToGroupMessage: { group, data: { protobufData: ANY }, ackId: 2, noEcho: true } });
    publisher.send({ sendToGroupMessage: { group, data: { textData: 'text data' }, ackId: 3 } });
    publisher.send({ sendToGroupMessage: { group, data: { jsonData: '{"a":1}' }, ackId: 4, noEcho: true } });
    await publisher.next(ackOf(4));
    expect(publisher.frames.filter((f) => f['message'] === 'ackMessage').map(ack)).toMatchObject([
      { ackId: 1, success: true },
      { ackId: 2, success: true },
      { ackId: 3, success: true },
      { ackId: 4, success: true },
    ]);

    await eventually(
      () => pbMember.data().length === 4 && jsonMember.frames.filter((f) => f['type'] === 'message').length === 4,
    );
    const [bin, pb, text, json] = pbMember.data().map(dataMessage);
    expect(bin).toMatchObject({ from: 'group', group, data: { data: 'binaryData' } });
    expect([...(bin!.data['binaryData'] as Buffer)]).toEqual([1, 2, 3]);
    expect(pb).toMatchObject({
      from: 'group',
      group,
      data: { data: 'protobufData', protobufData: { type_url: ANY.type_url } },
    });
    expect([...(pb!.data['protobufData'] as { value: Buffer }).value]).toEqual([0x08, 0x01]);
    expect(text).toMatchObject({ from: 'group', group, data: { data: 'textData', textData: 'text data' } });
    // JSON goes to protobuf clients as text_data holding the JSON, as the reference says.
    expect(json).toMatchObject({ from: 'group', group, data: { data: 'textData', textData: '{"a":1}' } });

    expect(jsonMember.frames.filter((f) => f['type'] === 'message')).toEqual([
      { type: 'message', from: 'group', group, dataType: 'binary', data: 'AQID' },
      { type: 'message', from: 'group', group, dataType: 'protobuf', data: ANY_BYTES.toString('base64') },
      { type: 'message', from: 'group', group, dataType: 'text', data: 'text data' },
      { type: 'message', from: 'group', group, dataType: 'json', data: { a: 1 } },
    ]);
    // The docs' own example of the base64 form of this Any.
    expect(ANY_BYTES.toString('base64')).toBe(
      'Ci90eXBlLmdvb2dsZWFwaXMuY29tL2F6dXJlLndlYnB1YnN1Yi5UZXN0TWVzc2FnZRICCAE=',
    );
    // noEcho kept the first, second and fourth from the publisher; the third came back.
    expect(publisher.data().map(dataMessage)).toMatchObject([{ data: { textData: 'text data' } }]);
  });

  it('delivers what JSON clients and the management API send: json as text_data, binary as binary_data', async () => {
    h = await startHarness();
    const group = 'chat';
    const pbMember = await protobufClient(h, { userId: 'm', groups: [group] });
    const jsonPublisher = await jsonClient(h, { userId: 'j', roles: ['webpubsub.sendToGroup'] });
    jsonPublisher.send({ type: 'sendToGroup', group, dataType: 'json', data: { hello: 'world' }, ackId: 1 });
    jsonPublisher.send({ type: 'sendToGroup', group, dataType: 'binary', data: 'AQID', ackId: 2 });
    await jsonPublisher.next((f) => f['ackId'] === 2);
    h.hub.sendToAll(new HubOutboundMessage({ kind: 'server' }, 'text', 'from the server'));
    await eventually(() => pbMember.data().length === 3);
    const [json, bin, server] = pbMember.data().map(dataMessage);
    expect(json).toMatchObject({ from: 'group', group, data: { textData: '{"hello":"world"}' } });
    expect([...(bin!.data['binaryData'] as Buffer)]).toEqual([1, 2, 3]);
    expect(server).toMatchObject({ from: 'server', data: { textData: 'from the server' } });
  });

  it('delivers management API sends (official service client): json and text as text_data, octet-stream as binary_data', async () => {
    h = await startHarness();
    const c = await protobufClient(h);
    const id = c.frames[0]!['systemMessage']['connectedMessage']['connectionId'] as string;
    const service = new WebPubSubServiceClient(
      `Endpoint=http://127.0.0.1;AccessKey=${ACCESS_KEY};Version=1.0;Port=${h.port};`,
      HUB_NAME,
      {
        allowInsecureConnection: true,
        retryOptions: { maxRetries: 0 },
      },
    );
    const group = service.group('device:demo:m1');
    await group.addConnection(id);
    await group.sendToAll({ hello: 'world' });
    await group.sendToAll('plain text', { contentType: 'text/plain' });
    await group.sendToAll(new Uint8Array([1, 2, 3]).buffer);
    await service.sendToConnection(id, new Uint8Array([4]).buffer);
    await eventually(() => c.data().length === 4);
    const [json, text, bin, direct] = c.data().map(dataMessage);
    expect(json).toMatchObject({
      from: 'group',
      group: 'device:demo:m1',
      data: { data: 'textData', textData: '{"hello":"world"}' },
    });
    expect(text).toMatchObject({ from: 'group', data: { data: 'textData', textData: 'plain text' } });
    expect(bin).toMatchObject({ from: 'group', data: { data: 'binaryData' } });
    expect([...(bin!.data['binaryData'] as Buffer)]).toEqual([1, 2, 3]);
    expect(direct).toMatchObject({ from: 'server', data: { data: 'binaryData' } });
    expect([...(direct!.data['binaryData'] as Buffer)]).toEqual([4]);
  });

  it('acks an invalid request with BadRequest and ignores a request it does not know', async () => {
    h = await startHarness();
    const c = await protobufClient(h);
    c.send({ joinGroupMessage: { group: '', ackId: 1 } });
    c.send({ sendToGroupMessage: { group: 'g', ackId: 2 } }); // no data
    // Field 13 (stream_data_message, not spoken here) alone: skipped as unknown.
    c.ws.send(Buffer.from([0x6a, 0x00]));
    c.send({ joinGroupMessage: { group: 'device:demo:d', ackId: 3 } });
    await c.next(ackOf(3));
    expect(c.frames.filter((f) => f['message'] === 'ackMessage').map(ack)).toMatchObject([
      {
        ackId: 1,
        success: false,
        error: { name: 'BadRequest', message: '"group" must be a group name of 1–1024 characters.' },
      },
      {
        ackId: 2,
        success: false,
        error: {
          name: 'BadRequest',
          message: '"data" must be one of text_data, binary_data, protobuf_data, json_data.',
        },
      },
      { ackId: 3, success: true },
    ]);
  });

  for (const [name, bytes] of [
    ['a truncated message', Buffer.from([0x32, 0x10, 0x0a])],
    ['invalid UTF-8 in a string', Buffer.from([0x32, 0x03, 0x0a, 0x01, 0xff])],
    ['an empty frame', Buffer.alloc(0)],
    ['JSON', Buffer.from('{"type":"joinGroup","group":"g"}')],
  ] as const) {
    it(`closes a client that sends ${name} with 1007 after a disconnected message, and keeps serving others`, async () => {
      h = await startHarness();
      const other = await protobufClient(h, { userId: 'o', groups: ['g'] });
      const c = await protobufClient(h);
      const id = c.frames[0]!['systemMessage']['connectedMessage']['connectionId'] as string;
      c.ws.send(bytes);
      const closed = await c.closed;
      expect(closed.code).toBe(1007);
      expect(c.frames.at(-1)!['systemMessage']['disconnectedMessage']['reason']).toMatch(
        /protobuf UpstreamMessage|empty/,
      );
      await eventually(() => !h!.hub.hasConnection(id));
      h.hub.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'text', 'still here'));
      expect(dataMessage(await other.next((f) => f['message'] === 'dataMessage'))).toMatchObject({
        data: { textData: 'still here' },
      });
    });
  }
});

describe('simple WebSocket clients', () => {
  it('receive protobuf data as the Any bytes in a binary frame', async () => {
    h = await startHarness();
    const simple = await openRaw(await h.clientUrl({ userId: 's', groups: ['g'] }));
    clients.push(simple);
    const publisher = await protobufClient(h, { userId: 'p', roles: ['webpubsub.sendToGroup'] });
    await eventually(() => h!.hub.connectionCount === 2);
    publisher.send({ sendToGroupMessage: { group: 'g', data: { protobufData: ANY } } });
    await eventually(() => simple.frames.length === 1);
    expect(simple.frames[0]!['binary']).toEqual(ANY_BYTES);
  });
});
