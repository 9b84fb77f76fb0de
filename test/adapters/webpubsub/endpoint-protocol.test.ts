import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { HubOutboundMessage } from '../../../src/wire/outbound-message.js';
import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../../../src/wire/webpubsub/access-token.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { eventually, HUB_NAME, reading, startHarness, type Harness } from './harness.js';
import { maskedTextFrame, openRaw, rawHandshake, type RawClient } from './raw-client.js';

const JSON_PROTOCOL = 'json.webpubsub.azure.v1';
const RELIABLE = 'json.reliable.webpubsub.azure.v1';

let h: Harness | undefined;
const raws: RawClient[] = [];

afterEach(async () => {
  for (const r of raws.splice(0)) r.ws.terminate();
  await h?.close();
  h = undefined;
});

async function raw(
  harness: Harness,
  protocol: string | undefined,
  claims: Parameters<Harness['clientUrl']>[0] = { userId: 'u', tenantId: 'demo' },
) {
  const client = await openRaw(await harness.clientUrl(claims), protocol);
  raws.push(client);
  return client;
}

describe('frames', () => {
  it('answers ping with pong and acks a repeated ackId as Duplicate', async () => {
    h = await startHarness();
    const c = await raw(h, JSON_PROTOCOL);
    await c.next((f) => f['event'] === 'connected');
    c.send({ type: 'ping' });
    await c.next((f) => f['type'] === 'pong');
    c.send({ type: 'joinGroup', group: 'device:demo:d', ackId: 5 });
    c.send({ type: 'joinGroup', group: 'device:demo:d', ackId: 5 });
    await eventually(() => c.frames.filter((f) => f['type'] === 'ack').length === 2);
    expect(c.frames.filter((f) => f['type'] === 'ack')).toEqual([
      { type: 'ack', ackId: 5, success: true },
      {
        type: 'ack',
        ackId: 5,
        success: false,
        error: { name: 'Duplicate', message: 'Message with ack-id: 5 has been processed.' },
      },
    ]);
  });

  it('acks an invalid request with BadRequest, ignores unknown types, accepts JSON in binary frames', async () => {
    h = await startHarness();
    const c = await raw(h, JSON_PROTOCOL);
    c.send({ type: 'joinGroup', group: '', ackId: 1 });
    c.send({ type: 'invoke', invocationId: 'x' });
    c.ws.send(Buffer.from(JSON.stringify({ type: 'joinGroup', group: 'device:demo:d', ackId: 2 })), { binary: true });
    await c.next((f) => f['ackId'] === 2);
    expect(c.frames.filter((f) => f['type'] === 'ack')).toEqual([
      {
        type: 'ack',
        ackId: 1,
        success: false,
        error: { name: 'BadRequest', message: '"group" must be a group name of 1–1024 characters.' },
      },
      { type: 'ack', ackId: 2, success: true },
    ]);
  });

  it('closes a client that does not speak the subprotocol with 1007', async () => {
    h = await startHarness();
    const c = await raw(h, JSON_PROTOCOL);
    const id = (await c.next((f) => f['event'] === 'connected'))['connectionId'] as string;
    c.ws.send('this is not json');
    expect((await c.closed).code).toBe(1007);
    await eventually(() => !h!.hub.hasConnection(id));
  });
});

describe('simple WebSocket clients (no subprotocol)', () => {
  it('receive bare data: text, JSON text and binary frames, and no system frames', async () => {
    h = await startHarness();
    const c = await raw(h, undefined, { userId: 'u', groups: ['g'] });
    await eventually(() => h!.hub.connectionCount === 1);
    h.hub.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'json', { a: 1 }));
    h.hub.sendToAll(new HubOutboundMessage({ kind: 'server' }, 'text', 'plain'));
    h.hub.sendToAll(new HubOutboundMessage({ kind: 'server' }, 'binary', Buffer.from([9])));
    await eventually(() => c.frames.length === 3);
    expect(c.frames[0]).toEqual({ a: 1 });
    expect(c.frames[1]).toEqual({ raw: 'plain' });
    expect([...(c.frames[2]!['binary'] as Buffer)]).toEqual([9]);
  });
});

describe('reliable sessions', () => {
  it('are removed after the retention window; recovery then gets 1008', async () => {
    const clock = new ManualClock();
    h = await startHarness({ sessionRetentionMs: 200, clock });
    const c = await raw(h, RELIABLE);
    const connected = await c.next((f) => f['event'] === 'connected');
    const id = connected['connectionId'] as string;
    expect(typeof connected['reconnectionToken']).toBe('string');
    h.endpoint.terminateSocket(id);
    await c.closed;
    await eventually(() => h!.endpoint.connection(id)?.socket === undefined);
    clock.advance(199);
    expect(h.hub.hasConnection(id)).toBe(true);
    clock.advance(1);
    expect(h.hub.hasConnection(id)).toBe(false);
    expect(h.endpoint.connectionCount).toBe(0);

    const url = new URL(await h.clientUrl());
    url.search = `?awps_connection_id=${id}&awps_reconnection_token=${encodeURIComponent(connected['reconnectionToken'] as string)}`;
    const again = await openRaw(url.toString(), RELIABLE);
    raws.push(again);
    expect((await again.closed).code).toBe(1008);
    expect(again.frames).toEqual([
      { type: 'system', event: 'disconnected', message: 'The session cannot be recovered.' },
    ]);
  });

  it('refuse a wrong reconnection token with 1008 and keep the session', async () => {
    h = await startHarness();
    const c = await raw(h, RELIABLE);
    const id = (await c.next((f) => f['event'] === 'connected'))['connectionId'] as string;
    const again = await openRaw(
      `${h.baseUrl.replace('http', 'ws')}/client/hubs/${HUB_NAME}?awps_connection_id=${id}&awps_reconnection_token=nope`,
      RELIABLE,
    );
    raws.push(again);
    expect((await again.closed).code).toBe(1008);
    expect(h.hub.hasConnection(id)).toBe(true);
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('stop writing when the resend buffer is full, conflate meanwhile, and resume on sequenceAck', async () => {
    h = await startHarness({ resendMaxMessages: 3 });
    const c = await raw(h, RELIABLE);
    c.send({ type: 'joinGroup', group: 'device:demo:d', ackId: 1 });
    await c.next((f) => f['ackId'] === 1);
    for (let seq = 1; seq <= 20; seq++) h.hub.publishReading(reading('d', seq));
    const data = () => c.frames.filter((f) => f['type'] === 'message');
    await eventually(() => data().length === 3);
    // A pong is written past the outbox: any message the connection wrote before it arrives first.
    c.send({ type: 'ping' });
    await c.next((f) => f['type'] === 'pong');
    expect(data().map((f) => [f['sequenceId'], (f['data'] as { seq: number }).seq])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
    ]);

    c.send({ type: 'sequenceAck', sequenceId: 3 });
    await eventually(() => data().length === 4);
    // Readings 4..19 were replaced by the newest one while the connection could not take them.
    expect(data()[3]).toMatchObject({ sequenceId: 4, data: { seq: 20 } });
  });

  it('a client closing normally ends its session at once', async () => {
    h = await startHarness();
    const c = await raw(h, RELIABLE);
    const id = (await c.next((f) => f['event'] === 'connected'))['connectionId'] as string;
    c.ws.close();
    await eventually(() => !h!.hub.hasConnection(id));
  });
});

describe('refused upgrades', () => {
  it('answer 401 problem+json for a bad token and 400 for unknown subprotocols', async () => {
    h = await startHarness();
    const token = await mintClientAccessToken({ accessKey: 'wrong', audience: clientAudience(h.baseUrl, HUB_NAME) });
    const bad = await openRaw(clientAccessUrl(h.baseUrl, HUB_NAME, token), JSON_PROTOCOL).catch(
      (e: { res: { statusCode: number; headers: Record<string, string> } }) => e.res,
    );
    expect(bad).toMatchObject({
      statusCode: 401,
      headers: { 'content-type': 'application/problem+json; charset=utf-8' },
    });
    // The handshake's HTTP status, or 101 when it was (wrongly) accepted.
    const statusOf = (opening: Promise<unknown>) =>
      opening.then(
        () => 101,
        (e: { res: { statusCode: number } }) => e.res.statusCode,
      );
    expect(await statusOf(openRaw(`${h.baseUrl.replace('http', 'ws')}/client/hubs/${HUB_NAME}`, JSON_PROTOCOL))).toBe(
      401,
    );
    expect(await statusOf(openRaw(await h.clientUrl(), 'mqtt'))).toBe(400);
  });
});

describe('shutdown', () => {
  it('closeAll closes every connection with 1012 after a disconnected frame', async () => {
    h = await startHarness();
    const a = await raw(h, RELIABLE);
    const b = await raw(h, undefined);
    await eventually(() => h!.hub.connectionCount === 2);
    h.endpoint.closeAll();
    expect((await a.closed).code).toBe(1012);
    expect((await b.closed).code).toBe(1012);
    expect(a.frames.at(-1)).toEqual({
      type: 'system',
      event: 'disconnected',
      message: 'The hub is restarting; reconnect.',
    });
    expect(h.hub.connectionCount).toBe(0);
  });
});

describe('an invalid frame', () => {
  it('(bad UTF-8 in a text frame, sent raw after the handshake) closes only that connection', async () => {
    h = await startHarness();
    const other = await raw(h, JSON_PROTOCOL);
    await other.next((f) => f['event'] === 'connected');
    other.send({ type: 'joinGroup', group: 'device:demo:d', ackId: 1 });
    await other.next((f) => f['ackId'] === 1);

    const url = new URL(await h.clientUrl());
    const {
      socket,
      received,
      closed: ended,
    } = await rawHandshake(h.port, `${url.pathname}${url.search}`, JSON_PROTOCOL);
    await eventually(() => Buffer.concat(received).includes('"event":"connected"'));
    expect(Buffer.concat(received).toString('latin1')).toMatch(/^HTTP\/1\.1 101/);
    expect(h.hub.connectionCount).toBe(2);

    received.length = 0;
    socket.write(maskedTextFrame(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))); // "{", invalid UTF-8, "}"
    await ended;
    const reply = Buffer.concat(received);
    // A close frame (opcode 8) with status 1007: invalid frame payload data.
    expect(reply[0]).toBe(0x88);
    expect(reply.readUInt16BE(2)).toBe(1007);
    await eventually(() => h!.hub.connectionCount === 1);

    // The other connection is untouched.
    h.hub.publishReading(reading('d', 1));
    await other.next((f) => f['type'] === 'message');
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    socket.destroy();
  });
});

describe('heartbeat', () => {
  it('cuts a socket that answers no pings; a reliable session waits for recovery', async () => {
    const clock = new ManualClock();
    h = await startHarness({ heartbeatIntervalMs: 50, clock });
    const url = new URL(await h.clientUrl());
    const silent = await rawHandshake(h.port, `${url.pathname}${url.search}`, RELIABLE);
    await eventually(() => h!.hub.connectionCount === 1);
    clock.advance(50); // pinged
    clock.advance(50); // silent for a whole period: cut
    await silent.closed;
    expect(h.hub.connectionCount).toBe(1);
    expect(h.endpoint.connectionCount).toBe(1);
    // A well-behaved client answers the pings and stays, however many periods pass.
    const c = await raw(h, JSON_PROTOCOL);
    const id = (await c.next((f) => f['event'] === 'connected'))['connectionId'] as string;
    const connection = h.endpoint.connection(id)!;
    for (let period = 0; period < 3; period++) {
      clock.advance(50);
      expect(connection.alive).toBe(false);
      await eventually(() => connection.alive, 5000); // the pong came back
    }
    clock.advance(50);
    expect(c.ws.readyState).toBe(WebSocket.OPEN);
    expect(connection.ended).toBe(false);
  });
});

describe('an unencodable message', () => {
  it('is dropped without stopping the fan-out or the connection', async () => {
    h = await startHarness();
    const a = await raw(h, undefined, { groups: ['g'] });
    const b = await raw(h, RELIABLE, { groups: ['g'] });
    await eventually(() => h!.hub.connectionCount === 2);
    h.hub.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'json', { big: 1n }));
    h.hub.sendToGroup('g', new HubOutboundMessage({ kind: 'group', group: 'g' }, 'json', { ok: true }));
    await b.next((f) => f['type'] === 'message');
    await a.next((f) => f['ok'] === true);
    expect(b.frames.filter((f) => f['type'] === 'message')).toEqual([
      { sequenceId: 1, type: 'message', from: 'group', group: 'g', dataType: 'json', data: { ok: true } },
    ]);
  });
});

describe('token expiry', () => {
  it('closes a connection when its access token expires, with 1008 and a disconnected frame', async () => {
    const clock = new ManualClock(Date.now());
    h = await startHarness({ clock });
    const c = await raw(h, JSON_PROTOCOL, { userId: 'u', tenantId: 'demo', expiresInSeconds: 60 });
    await c.next((f) => f['event'] === 'connected');
    clock.advance(58_000);
    // A round trip: a connection closed early would have sent its disconnected frame before the pong.
    c.send({ type: 'ping' });
    await c.next((f) => f['type'] === 'pong');
    expect(c.frames.some((f) => f['event'] === 'disconnected')).toBe(false);
    clock.advance(3_000); // past exp, whichever part of its second the token was minted in
    const closed = await c.closed;
    expect(closed.code).toBe(1008);
    expect(c.frames.at(-1)).toMatchObject({ type: 'system', event: 'disconnected' });
    expect(h.hub.connectionCount).toBe(0);
  });
});
