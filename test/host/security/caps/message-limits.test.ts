import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../../support/app-harness.js';
import { requireService } from '../../../support/services.js';
import { openRaw, type RawClient } from '../../../adapters/webpubsub/raw-client.js';
import { clientUrl, deepJson, management } from './caps-support.js';

// Hub:MaxMessageBytes and the JSON depth cap (32, as for readings) on every way a message enters:
// a value nested 100 000 levels deep is refused with a clear error and nothing crashes.
const DEEP = deepJson(100_000);
const PROTOCOL = 'json.webpubsub.azure.v1';
const raws: RawClient[] = [];

async function member(running: RunningApp, group: string, roles: string[] = []): Promise<RawClient> {
  const client = await openRaw(
    await clientUrl(running, {
      userId: `u-${raws.length}`,
      tenantId: 't1',
      roles: ['webpubsub.joinLeaveGroup', ...roles],
    }),
    PROTOCOL,
  );
  raws.push(client);
  await client.next((f) => f['event'] === 'connected');
  client.send({ type: 'joinGroup', group, ackId: 1 });
  await client.next((f) => f['type'] === 'ack' && f['ackId'] === 1 && f['success'] === true);
  return client;
}

const received = (c: RawClient) => c.frames.filter((f) => f['type'] === 'message');

describe('JSON depth', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp();
  });
  afterAll(async () => {
    for (const r of raws.splice(0)) r.ws.terminate();
    await running.stop();
  });

  it('management API: a 100 000-level JSON send is a 400 problem; the group then gets the next send', async () => {
    const listener = await member(running, 'g-mgmt');
    for (const path of ['/groups/g-mgmt/:send', '/:send']) {
      const res = await management(running, 'POST', path, { contentType: 'application/json', text: DEEP });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('HUB_ERR_MGMT_BAD_REQUEST');
      expect(body.detail).toMatch(/nested deeper than 32 levels/);
    }
    // 32 levels are fine, like a reading's.
    expect(
      (
        await management(running, 'POST', '/groups/g-mgmt/:send', {
          contentType: 'application/json',
          text: deepJson(31),
        })
      ).status,
    ).toBe(202);
    await eventually(() => received(listener).length === 1, 5000, 'the 32-level message');
    expect(received(listener)).toHaveLength(1);
  });

  it('Web PubSub: sendToGroup and event frames nested 100 000 levels are acked BadRequest and reach no one', async () => {
    const listener = await member(running, 'g-wps');
    const sender = await member(running, 'g-other', ['webpubsub.sendToGroup']);
    sender.ws.send(`{"type":"sendToGroup","group":"g-wps","ackId":7,"dataType":"json","data":${DEEP}}`);
    const ack = await sender.next((f) => f['type'] === 'ack' && f['ackId'] === 7);
    expect(ack).toMatchObject({ success: false, error: { name: 'BadRequest' } });
    expect((ack['error'] as { message: string }).message).toMatch(/nested at most 32 levels/);
    sender.ws.send(`{"type":"event","event":"subscribe","ackId":8,"dataType":"json","data":${DEEP}}`);
    expect(await sender.next((f) => f['type'] === 'ack' && f['ackId'] === 8)).toMatchObject({
      success: false,
      error: { name: 'BadRequest' },
    });

    sender.send({ type: 'sendToGroup', group: 'g-wps', ackId: 9, dataType: 'json', data: { ok: 1 } });
    await sender.next((f) => f['type'] === 'ack' && f['ackId'] === 9 && f['success'] === true);
    await eventually(() => received(listener).length === 1, 5000, 'the shallow message');
    expect(received(listener)[0]).toMatchObject({ data: { ok: 1 } });
  });

  it('socket.io: a too deep event is acked HUB_ERR_HUB_BAD_MESSAGE; one past the buffer limit closes only that connection', async () => {
    const socket = await connectTelemetry(running.url, await userToken('t1'));
    const deep = JSON.parse(deepJson(1000)) as unknown;
    const ack = (await socket.emitWithAck('subscribe', deep)) as {
      ok: boolean;
      error: { code: string; message: string };
    };
    expect(ack).toMatchObject({ ok: false, error: { code: 'HUB_ERR_HUB_BAD_MESSAGE' } });
    expect(ack.error.message).toMatch(/nested at most 32 levels/);
    socket.close();
    // 100 000 levels (socket.io-client itself cannot encode them, so the packet is written raw) do
    // not fit socket.io's 64 KiB message limit: that connection is closed, nothing else.
    const raw = new WebSocket(`${running.url.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`);
    const frames: string[] = [];
    raw.on('message', (data) => frames.push(data.toString()));
    const closed = new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)));
    await eventually(() => frames.some((f) => f.startsWith('0{')), 5000, 'engine.io open');
    raw.send(`40/telemetry,${JSON.stringify({ token: await userToken('t1') })}`);
    await eventually(() => frames.some((f) => f.startsWith('40/telemetry,{"sid"')), 5000, 'namespace connect');
    raw.send(`42/telemetry,["subscribe",${DEEP}]`);
    expect(await closed).toBe(1009);

    const again = await connectTelemetry(running.url, await userToken('t1'));
    expect(await again.emitWithAck('subscribe', { deviceId: 'd1' })).toMatchObject({ ok: true });
    again.close();
  });
});

describe('Hub:MaxMessageBytes', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(['--Hub:MaxMessageBytes=2048']);
  });
  afterAll(async () => {
    for (const r of raws.splice(0)) r.ws.terminate();
    await running.stop();
  });

  it('management API: a send larger than the limit is a 413 problem HUB_ERR_HUB_MESSAGE_TOO_LARGE', async () => {
    for (const contentType of ['application/json', 'text/plain', 'application/octet-stream']) {
      const text = contentType === 'application/json' ? JSON.stringify({ pad: 'x'.repeat(4096) }) : 'x'.repeat(4096);
      const res = await management(running, 'POST', '/groups/g/:send', { contentType, text });
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ status: 413, code: 'HUB_ERR_HUB_MESSAGE_TOO_LARGE' });
    }
    expect(
      (await management(running, 'POST', '/groups/g/:send', { contentType: 'text/plain', text: 'x'.repeat(1000) }))
        .status,
    ).toBe(202);
  });

  it('Web PubSub: a client frame larger than the limit closes that connection with 1009', async () => {
    const sender = await member(running, 'g', ['webpubsub.sendToGroup']);
    sender.send({ type: 'sendToGroup', group: 'g', dataType: 'text', data: 'x'.repeat(4096) });
    expect((await sender.closed).code).toBe(1009);
  });
});

describe('JSON depth across a Redis backplane', () => {
  it('a deep management send on one instance is refused there and never reaches (or stops) the other', async () => {
    if (!(await requireService('Redis', 6379))) return;
    const hubName = `caps${process.pid}${Date.now() % 100_000}`;
    const args = ['--ConnectionStrings:redis=redis://127.0.0.1:6379', `--Hub:Name=${hubName}`];
    const a = await startApp(args);
    const b = await startApp(args);
    try {
      const listener = await member(b, 'g-peer');
      const refused = await management(a, 'POST', '/groups/g-peer/:send', {
        contentType: 'application/json',
        text: DEEP,
      });
      expect(refused.status).toBe(400);
      expect(
        (await management(a, 'POST', '/groups/g-peer/:send', { contentType: 'application/json', text: '{"n":1}' }))
          .status,
      ).toBe(202);
      await eventually(() => received(listener).length === 1, 5000, 'the shallow message on the peer');
      expect(received(listener)[0]).toMatchObject({ data: { n: 1 } });
    } finally {
      for (const r of raws.splice(0)) r.ws.terminate();
      await a.stop();
      await b.stop();
    }
  });
});
