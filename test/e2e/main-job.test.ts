import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { DeviceFleet } from '../support/mqtt-device.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';

type Reading = {
  tenantId: string;
  deviceId: string;
  seq: number;
  ts: number;
  receivedAt: number;
  data: Record<string, unknown>;
};

describe('main job over the embedded broker: MQTT → throttle → device group → socket.io', () => {
  let hub: RunningApp;
  let device: DeviceFleet;
  const sockets: Socket[] = [];
  // The throttle runs on this clock: tests move time instead of waiting for it.
  const clock = new ManualClock(Date.now());

  beforeAll(async () => {
    hub = await startApp([], undefined, clock);
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
    await eventually(
      () => hub.app.telemetry.registry.last('t1', 'dev-a') !== undefined,
      3000,
      'first reading accepted',
    );
    const socket = await subscriber('t1');
    const ack = (await socket.emitWithAck('subscribe', { deviceId: 'dev-a' })) as { ok: boolean; last: Reading | null };
    expect(ack.ok).toBe(true);
    expect(ack.last).toMatchObject({ tenantId: 't1', deviceId: 'dev-a', seq: 1, data: { temperature: 20.5 } });
    expect(ack.last).not.toHaveProperty('traceparent');

    const received: Reading[] = [];
    socket.on('reading', (r: Reading) => received.push(r));
    clock.advance(200); // a new throttle interval: the next reading goes out at once
    await device.publishAsync(
      'tenants/t1/devices/dev-a/telemetry',
      JSON.stringify({ temperature: 21, ts: '2026-11-22T10:00:00Z' }),
      { qos: 1 },
    );
    await eventually(() => received.length === 1, 3000, 'reading delivered');
    expect(received[0]).toMatchObject({
      tenantId: 't1',
      deviceId: 'dev-a',
      seq: 2,
      ts: Date.parse('2026-11-22T10:00:00Z'),
      data: { temperature: 21 },
    });
    expect(received[0]!.data).not.toHaveProperty('ts');
  });

  it('a tenant-t2 client cannot subscribe to a tenant-t1 device', async () => {
    const socket = await subscriber('t2');
    const ack = (await socket.emitWithAck('subscribe', { tenantId: 't1', deviceId: 'dev-a' })) as {
      ok: boolean;
      error?: { code: string };
    };
    expect(ack).toMatchObject({ ok: false, error: { code: 'HUB_ERR_HUB_GROUP_FORBIDDEN' } });
    // Its own subscription names its own tenant's device of that id, never t1's.
    const received: Reading[] = [];
    socket.on('reading', (r: Reading) => received.push(r));
    expect(((await socket.emitWithAck('subscribe', { deviceId: 'dev-a' })) as { last: unknown }).last).toBeNull();
    await device.publishAsync('tenants/t1/devices/dev-a/telemetry', JSON.stringify({ temperature: 99 }), { qos: 1 });
    // Its own device's reading, published after t1's, is the barrier: t1's would have come first.
    await device.publishAsync('tenants/t2/devices/dev-a/telemetry', JSON.stringify({ own: true }), { qos: 1 });
    await eventually(() => received.length === 1, 3000, "the client's own reading");
    expect(received).toEqual([expect.objectContaining({ tenantId: 't2', deviceId: 'dev-a', data: { own: true } })]);
  });

  it('a malformed subscribe is answered with an error ack, and the connection stays usable', async () => {
    const socket = await subscriber('t1');
    expect(await socket.emitWithAck('subscribe', { deviceId: '../etc' })).toMatchObject({
      ok: false,
      error: { code: 'HUB_ERR_HUB_BAD_MESSAGE' },
    });
    expect(await socket.emitWithAck('subscribe', null)).toMatchObject({ ok: false });
    expect(await socket.emitWithAck('subscribe', { deviceId: 'dev-a' })).toMatchObject({ ok: true });
  });

  it('unsubscribe stops delivery', async () => {
    const socket = await subscriber('t1');
    const received: Reading[] = [];
    socket.on('reading', (r: Reading) => received.push(r));
    await socket.emitWithAck('subscribe', { deviceId: 'dev-u' });
    await socket.emitWithAck('subscribe', { deviceId: 'dev-u-marker' });
    await device.publishAsync('tenants/t1/devices/dev-u/telemetry', JSON.stringify({ v: 1 }), { qos: 1 });
    await eventually(() => received.length === 1, 3000, 'first reading');
    expect(await socket.emitWithAck('unsubscribe', { deviceId: 'dev-u' })).toEqual({ ok: true });
    clock.advance(250); // past the throttle interval: v2 is published at once, not held
    await device.publishAsync('tenants/t1/devices/dev-u/telemetry', JSON.stringify({ v: 2 }), { qos: 1 });
    await device.publishAsync('tenants/t1/devices/dev-u-marker/telemetry', JSON.stringify({ marker: true }), {
      qos: 1,
    });
    await eventually(() => received.some((r) => r.deviceId === 'dev-u-marker'), 3000, 'the marker published after v2');
    expect(received.filter((r) => r.deviceId === 'dev-u').map((r) => r.data)).toEqual([{ v: 1 }]);
  });

  it('a device publishing 100/s for 3 s yields 12–18 readings, the last one within 1 s of the burst', async () => {
    const socket = await subscriber('t1');
    const received: { reading: Reading }[] = [];
    socket.on('reading', (r: Reading) => received.push({ reading: r }));
    await socket.emitWithAck('subscribe', { deviceId: 'burst' });
    const accepted = () => hub.app.telemetry.pipeline.stats().accepted;
    // 100/s for 3 s of the hub's clock: 10 readings, taken by the pipeline, then 100 ms, 30 times.
    let i = 0;
    for (let step = 0; step < 30; step++) {
      const target = accepted() + 10;
      for (let k = 0; k < 10; k++) device.publish('tenants/t1/devices/burst/telemetry', JSON.stringify({ i: i++ }));
      await eventually(() => accepted() === target, 3000, `readings of step ${step}`);
      clock.advance(100);
    }
    const last = i - 1;
    // The newest reading is due within one interval (200 ms at 5/s), well inside the contract's 1 s.
    clock.advance(200);
    await eventually(() => received.some((x) => x.reading.data.i === last), 3000, 'last reading of the burst');
    expect(received.length).toBeGreaterThanOrEqual(12);
    expect(received.length).toBeLessThanOrEqual(18);
    const seqs = received.map((x) => x.reading.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  });

  it('refuses a connection without a token, or with a bad one, with connect_error data.code', async () => {
    await expect(connectTelemetry(hub.url, undefined)).rejects.toMatchObject({
      data: { code: 'HUB_ERR_AUTH_UNAUTHENTICATED' },
    });
    await expect(connectTelemetry(hub.url, 'not-a-token')).rejects.toMatchObject({
      data: { code: 'HUB_ERR_AUTH_INVALID_TOKEN' },
    });
  });
});

describe('bad input on the ingestion path', () => {
  it('10k malformed payloads interleaved with good ones lose no good reading', async () => {
    // Throttle out of the way: this is about loss, not conflation. Each round is 5 ms of the hub's
    // clock apart, so a device's readings are never within one throttle interval (1 ms).
    const clock = new ManualClock(Date.now());
    const hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000'], undefined, clock);
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
    socket.on('reading', (r: Reading) =>
      received.set(r.deviceId, [...(received.get(r.deviceId) ?? []), r.data.n as number]),
    );
    for (let d = 0; d < devices; d++) await socket.emitWithAck('subscribe', { deviceId: `good-${d}` });
    let sentBad = 0;
    for (let round = 0; round < good; round++) {
      for (let k = 0; k < 10_000 / good; k++) {
        // Bad ids never get this far on the embedded broker: no device token names one (test/security).
        device.publish(`tenants/t3/devices/good-${k % devices}/telemetry`, bad[k % bad.length]!);
        sentBad++;
      }
      for (let d = 0; d < devices; d++)
        device.publish(`tenants/t3/devices/good-${d}/telemetry`, JSON.stringify({ n: round }));
      const target = before.accepted + (round + 1) * devices;
      await eventually(
        () => hub.app.telemetry.pipeline.stats().accepted === target,
        10_000,
        `good readings of round ${round}`,
      );
      clock.advance(5);
    }
    await eventually(
      () => [...received.values()].reduce((a, v) => a + v.length, 0) === good * devices,
      10_000,
      'every good reading',
    );
    for (let d = 0; d < devices; d++)
      expect(received.get(`good-${d}`)).toEqual(Array.from({ length: good }, (_, n) => n));
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
    const clock = new ManualClock(Date.now());
    const hub = await startApp(['--Auth:Jwt:ClockSkewSeconds=0'], undefined, clock);
    try {
      // In step with the token's issuer: it expires about 59–60 s from now on the hub's clock (exp is whole seconds).
      clock.setWallTime(Date.now());
      const socket = await connectTelemetry(hub.url, await userToken('exp', { expiresInSeconds: 60 }));
      let told = false;
      const closed = new Promise<unknown>((resolve) => socket.once('hub_closed', resolve)).finally(() => (told = true));
      const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      clock.advance(59_000);
      // A round trip on the socket: had the session been closed early, hub_closed would come first.
      await socket.emitWithAck('subscribe', { deviceId: 'still-open' });
      expect(told).toBe(false);
      clock.advance(2_000);
      expect(await closed).toMatchObject({ reason: 'token-expired', code: 'HUB_ERR_AUTH_INVALID_TOKEN' });
      expect(await disconnected).toBe('io server disconnect');
    } finally {
      await hub.stop();
    }
  });
});
