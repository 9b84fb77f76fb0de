import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { DeviceFleet } from '../support/mqtt-device.js';

type Reading = { tenantId: string; deviceId: string; seq: number; ts: number; receivedAt: number; data: Record<string, unknown> };

describe('main job over the embedded broker: MQTT → throttle → device group → socket.io', () => {
  let hub: RunningApp;
  let device: DeviceFleet;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    hub = await startApp();
    device = new DeviceFleet(hub.brokerUrl!);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    await device?.endAsync();
    await hub?.stop();
  });

  async function subscriber(tenant: string): Promise<Socket> {
    const socket = await connectTelemetry(hub.url, await userToken(tenant));
    sockets.push(socket);
    return socket;
  }

  it('a subscribed client receives what a device publishes, with last on the ack', async () => {
    await device.publishAsync('tenants/t1/devices/dev-a/telemetry', JSON.stringify({ temperature: 20.5 }), { qos: 1 });
    await eventually(() => hub.app.telemetry.registry.last('t1', 'dev-a') !== undefined, 3000, 'first reading accepted');
    const socket = await subscriber('t1');
    const ack = (await socket.emitWithAck('subscribe', { deviceId: 'dev-a' })) as { ok: boolean; last: Reading | null };
    expect(ack.ok).toBe(true);
    expect(ack.last).toMatchObject({ tenantId: 't1', deviceId: 'dev-a', seq: 1, data: { temperature: 20.5 } });
    expect(ack.last).not.toHaveProperty('traceparent');

    const received: Reading[] = [];
    socket.on('reading', (r: Reading) => received.push(r));
    await device.publishAsync('tenants/t1/devices/dev-a/telemetry', JSON.stringify({ temperature: 21, ts: '2026-11-22T10:00:00Z' }), { qos: 1 });
    await eventually(() => received.length === 1, 3000, 'reading delivered');
    expect(received[0]).toMatchObject({ tenantId: 't1', deviceId: 'dev-a', seq: 2, ts: Date.parse('2026-11-22T10:00:00Z'), data: { temperature: 21 } });
    expect(received[0]!.data).not.toHaveProperty('ts');
  });

  it('a tenant-t2 client cannot subscribe to a tenant-t1 device', async () => {
    const socket = await subscriber('t2');
    const ack = (await socket.emitWithAck('subscribe', { tenantId: 't1', deviceId: 'dev-a' })) as { ok: boolean; error?: { code: string } };
    expect(ack).toMatchObject({ ok: false, error: { code: 'HUB_ERR_HUB_GROUP_FORBIDDEN' } });
    // Its own subscription names its own tenant's device of that id, never t1's.
    const received: Reading[] = [];
    socket.on('reading', (r: Reading) => received.push(r));
    expect(((await socket.emitWithAck('subscribe', { deviceId: 'dev-a' })) as { last: unknown }).last).toBeNull();
    await device.publishAsync('tenants/t1/devices/dev-a/telemetry', JSON.stringify({ temperature: 99 }), { qos: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toEqual([]);
  });

  it('a malformed subscribe is answered with an error ack, and the connection stays usable', async () => {
    const socket = await subscriber('t1');
    expect(await socket.emitWithAck('subscribe', { deviceId: '../etc' })).toMatchObject({ ok: false, error: { code: 'HUB_ERR_HUB_BAD_MESSAGE' } });
    expect(await socket.emitWithAck('subscribe', null)).toMatchObject({ ok: false });
    expect(await socket.emitWithAck('subscribe', { deviceId: 'dev-a' })).toMatchObject({ ok: true });
  });

  it('unsubscribe stops delivery', async () => {
    const socket = await subscriber('t1');
    const received: Reading[] = [];
    socket.on('reading', (r: Reading) => received.push(r));
    await socket.emitWithAck('subscribe', { deviceId: 'dev-u' });
    await device.publishAsync('tenants/t1/devices/dev-u/telemetry', JSON.stringify({ v: 1 }), { qos: 1 });
    await eventually(() => received.length === 1, 3000, 'first reading');
    expect(await socket.emitWithAck('unsubscribe', { deviceId: 'dev-u' })).toEqual({ ok: true });
    await new Promise((r) => setTimeout(r, 250)); // past the throttle interval
    await device.publishAsync('tenants/t1/devices/dev-u/telemetry', JSON.stringify({ v: 2 }), { qos: 1 });
    await new Promise((r) => setTimeout(r, 300));
    expect(received).toHaveLength(1);
  });

  it('a device publishing 100/s for 3 s yields 12–18 readings, the last one within 1 s of the burst', async () => {
    const socket = await subscriber('t1');
    const received: { reading: Reading; at: number }[] = [];
    socket.on('reading', (r: Reading) => received.push({ reading: r, at: Date.now() }));
    await socket.emitWithAck('subscribe', { deviceId: 'burst' });
    let i = 0;
    const started = Date.now();
    while (Date.now() - started < 3000) {
      device.publish('tenants/t1/devices/burst/telemetry', JSON.stringify({ i: i++ }));
      await new Promise((r) => setTimeout(r, 10));
    }
    const last = i - 1;
    const burstEnd = Date.now();
    await eventually(() => received.some((x) => x.reading.data.i === last), 1500, 'last reading of the burst');
    const arrival = received.find((x) => x.reading.data.i === last)!.at;
    expect(arrival - burstEnd).toBeLessThanOrEqual(1000);
    expect(received.length).toBeGreaterThanOrEqual(12);
    expect(received.length).toBeLessThanOrEqual(18);
    const seqs = received.map((x) => x.reading.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  it('refuses a connection without a token, or with a bad one, with connect_error data.code', async () => {
    await expect(connectTelemetry(hub.url, undefined)).rejects.toMatchObject({ data: { code: 'HUB_ERR_AUTH_UNAUTHENTICATED' } });
    await expect(connectTelemetry(hub.url, 'not-a-token')).rejects.toMatchObject({ data: { code: 'HUB_ERR_AUTH_INVALID_TOKEN' } });
  });
});

describe('bad input on the ingestion path', () => {
  it('10k malformed payloads interleaved with good ones lose no good reading', async () => {
    // Throttle out of the way: this is about loss, not conflation.
    const hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000']);
    const device = new DeviceFleet(hub.brokerUrl!);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
    const before = hub.app.telemetry.pipeline.stats();
    const bad = [
      'not json',
      '[1,2,3]',
      '"string"',
      JSON.stringify({ ts: 'yesterday-ish' }),
      '{"a":' + '['.repeat(40) + ']'.repeat(40) + '}',
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
      JSON.stringify({ big: 'x'.repeat(17 * 1024) }),
    ];
    const good = 20;
    const devices = 10;
    const socket = await connectTelemetry(hub.url, await userToken('t3'));
    const received = new Map<string, number[]>();
    socket.on('reading', (r: Reading) => received.set(r.deviceId, [...(received.get(r.deviceId) ?? []), r.data.n as number]));
    for (let d = 0; d < devices; d++) await socket.emitWithAck('subscribe', { deviceId: `good-${d}` });
    let sentBad = 0;
    for (let round = 0; round < good; round++) {
      for (let k = 0; k < 10_000 / good; k++) {
        // Bad ids never get this far on the embedded broker: no device token names one (test/security).
        device.publish(`tenants/t3/devices/good-${k % devices}/telemetry`, bad[k % bad.length]!);
        sentBad++;
      }
      // Acknowledged before the next round: the devices' connections are apart, so without it a round
      // could reach the hub within the throttle's 1 ms of the last and be conflated.
      await Promise.all(
        Array.from({ length: devices }, (_, d) => device.publishAsync(`tenants/t3/devices/good-${d}/telemetry`, JSON.stringify({ n: round }), { qos: 1 })),
      );
      await new Promise((r) => setTimeout(r, 5));
    }
    await eventually(() => [...received.values()].reduce((a, v) => a + v.length, 0) === good * devices, 10_000, 'every good reading');
    for (let d = 0; d < devices; d++) expect(received.get(`good-${d}`)).toEqual(Array.from({ length: good }, (_, n) => n));
    const after = hub.app.telemetry.pipeline.stats();
    const dropped = (s: typeof after) => Object.values(s.dropped).reduce((a, b) => a + b, 0);
    expect(dropped(after) - dropped(before)).toBe(sentBad);
    expect(after.accepted - before.accepted).toBe(good * devices);
    socket.close();
    await device.endAsync();
    await hub.stop();
  }, 30_000);

});

describe('live connections and token expiry', () => {
  it('a socket.io session whose token expires is told so and closed', async () => {
    const hub = await startApp(['--Auth:Jwt:ClockSkewSeconds=0']);
    try {
      const socket = await connectTelemetry(hub.url, await userToken('exp', { expiresInSeconds: 1 }));
      const closed = new Promise<unknown>((resolve) => socket.once('hub_closed', resolve));
      const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      expect(await closed).toMatchObject({ reason: 'token-expired', code: 'HUB_ERR_AUTH_INVALID_TOKEN' });
      expect(await disconnected).toBe('io server disconnect');
    } finally {
      await hub.stop();
    }
  });
});
