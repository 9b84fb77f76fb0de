import type { SendMessageError, WebPubSubClient } from '@azure/web-pubsub-client';
import type { MqttClient } from 'mqtt';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { WireReading } from '../../src/wire/reading.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';
import { connectDevice } from '../support/mqtt-device.js';
import { startOfficialClient } from '../support/web-pubsub-client.js';

const TENANT = 'catch';
const CATCH_UP_MAX = 40;

/**
 * Catch-up end to end: readings published by real MQTT devices to the embedded broker, followed by
 * the official socket.io and Web PubSub clients. Time is the hub's injected clock: "30 s" pass in
 * `advance` calls, so the throttle lets each reading through without the test waiting.
 */
describe('gapless catch-up (subscribe with since)', () => {
  const clock = new ManualClock(Date.now());
  let hub: RunningApp;
  const devices: MqttClient[] = [];
  const sockets: Socket[] = [];
  const clients: WebPubSubClient[] = [];

  beforeAll(async () => {
    hub = await startApp([`--Hub:CatchUpMax=${CATCH_UP_MAX}`], undefined, clock);
  });
  afterEach(() => {
    for (const s of sockets.splice(0)) s.close();
    for (const c of clients.splice(0)) c.stop();
  });
  afterAll(async () => {
    for (const d of devices) await d.endAsync();
    await hub?.stop();
  });

  /** A device that publishes readings one at a time, each accepted by the hub before the next, `stepMs` of hub time apart. */
  async function device(deviceId: string) {
    const client = await connectDevice(hub.brokerUrl!, TENANT, deviceId);
    devices.push(client);
    let seq = 0;
    return async (count: number, stepMs = 1000): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const expected = ++seq;
        await client.publishAsync(
          `tenants/${TENANT}/devices/${deviceId}/telemetry`,
          JSON.stringify({ temperature: 20 + expected / 10 }),
        );
        await eventually(
          () => hub.app.telemetry.registry.last(TENANT, deviceId)?.seq === expected,
          5000,
          `seq ${expected} accepted`,
        );
        clock.advance(stepMs);
      }
    };
  }

  /** A socket.io client recording, in one list, its readings' seqs and the acks of what it emits (by callback, in wire order). */
  async function socketClient(tenant = TENANT) {
    const socket = await connectTelemetry(hub.url, await userToken(tenant));
    sockets.push(socket);
    const events: (number | { ack: Record<string, unknown> })[] = [];
    socket.on('reading', (r: WireReading) => events.push(r.seq));
    const subscribe = (payload: Record<string, unknown>) =>
      new Promise<Record<string, unknown>>((resolve) =>
        socket.emit('subscribe', payload, (ack: Record<string, unknown>) => {
          events.push({ ack });
          resolve(ack);
        }),
      );
    return { socket, events, subscribe };
  }

  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('socket.io: after a 30 s disconnect, the ack, exactly the missed seqs in order, then live', async () => {
    const publish = await device('boiler-1');
    const first = await socketClient();
    expect(await first.subscribe({ deviceId: 'boiler-1' })).toMatchObject({ ok: true, last: null });
    await publish(3);
    await eventually(() => first.events.length === 4, 5000, 'three live readings');
    expect(first.events.slice(1)).toEqual([1, 2, 3]);
    first.socket.close();

    // 30 readings at one a second while the client is away.
    await publish(30);
    const again = await socketClient();
    const ack = await again.subscribe({ deviceId: 'boiler-1', since: 3 });
    expect(ack).toMatchObject({ ok: true, replayed: 30, truncated: false, last: { deviceId: 'boiler-1', seq: 33 } });
    await publish(1);
    await eventually(() => again.events.length === 32, 5000, 'replay and one live reading');
    expect(again.events).toEqual([{ ack }, ...range(4, 34)]);
  });

  it('socket.io: live readings arriving during the catch-up follow the replay with no gap and no duplicate', async () => {
    const publish = await device('boiler-2');
    await publish(10, 250);
    const client = await socketClient();
    const subscribed = client.subscribe({ deviceId: 'boiler-2', since: 0 });
    // Published while the subscribe is in flight: each reading once, wherever the seam falls.
    await publish(5, 250);
    const ack = await subscribed;
    await eventually(() => client.events.length === 16, 5000, 'fifteen readings');
    expect(client.events).toEqual([{ ack }, ...range(1, 15)]);
    expect(ack).toMatchObject({ ok: true, truncated: false });
  });

  it(`socket.io: more missed than Hub:CatchUpMax replays the newest ${CATCH_UP_MAX} and says truncated`, async () => {
    const publish = await device('boiler-3');
    await publish(CATCH_UP_MAX + 5, 250);
    const client = await socketClient();
    const ack = await client.subscribe({ deviceId: 'boiler-3', since: 1 });
    expect(ack).toMatchObject({ ok: true, replayed: CATCH_UP_MAX, truncated: true });
    await eventually(() => client.events.length === CATCH_UP_MAX + 1, 5000, 'the replay');
    expect(client.events.slice(1)).toEqual(range(6, CATCH_UP_MAX + 5));
  });

  it('socket.io: a bad since gets an error ack and joins nothing; another tenant is refused as without since', async () => {
    const publish = await device('boiler-4');
    await publish(2, 250);
    const client = await socketClient();
    for (const since of [-1, 1.5, '3', null, Number.MAX_SAFE_INTEGER + 2]) {
      expect(await client.subscribe({ deviceId: 'boiler-4', since })).toMatchObject({
        ok: false,
        error: { code: 'HUB_ERR_HUB_BAD_MESSAGE' },
      });
    }
    expect(hub.app.telemetry.hub.groupsOf(client.socket.id!)).toEqual([]);
    expect(await client.subscribe({ deviceId: 'boiler-4', tenantId: 'other', since: 0 })).toMatchObject({
      ok: false,
      error: { code: 'HUB_ERR_HUB_GROUP_FORBIDDEN' },
    });
    // A user of another tenant naming the same device id catches up on its own tenant's device: nothing.
    const stranger = await socketClient('other');
    expect(await stranger.subscribe({ deviceId: 'boiler-4', since: 0 })).toMatchObject({
      ok: true,
      last: null,
      replayed: 0,
      truncated: false,
    });
    expect(stranger.events.filter((e) => typeof e === 'number')).toEqual([]);
  });

  describe.each([
    ['json.webpubsub.azure.v1', false],
    ['json.reliable.webpubsub.azure.v1', true],
  ])('Web PubSub (official client, %s)', (_name, reliable) => {
    async function webPubSubClient(tenant = TENANT) {
      const token = await userToken(tenant);
      const res = await fetch(`${hub.url}/api/negotiate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      const { url } = (await res.json()) as { url: string };
      const client = await startOfficialClient(url, reliable);
      clients.push(client.client);
      return client;
    }

    it('the subscribe event with since: ack, a catch-up summary, the missed readings as group messages, then live', async () => {
      const deviceId = `pump-${reliable ? 'r' : 'j'}`;
      const publish = await device(deviceId);
      await publish(8, 250);
      const client = await webPubSubClient();
      await client.client.sendEvent('subscribe', { deviceId, since: 5 }, 'json');
      await publish(1, 250);
      await eventually(() => client.group.length === 4 && client.server.length === 1, 5000, 'replay, summary and live');
      expect(client.server[0]!.data).toEqual({
        catchUp: {
          deviceId,
          since: 5,
          replayed: 3,
          truncated: false,
          last: expect.objectContaining({ deviceId, seq: 8 }),
        },
      });
      expect(client.group.map((m) => [m.group, (m.data as WireReading).seq])).toEqual(
        [6, 7, 8, 9].map((seq) => [`device:${TENANT}:${deviceId}`, seq]),
      );
    });

    it('a bad since is refused with BadRequest; another tenant catches up on its own device of that id only', async () => {
      const deviceId = `valve-${reliable ? 'r' : 'j'}`;
      const publish = await device(deviceId);
      await publish(2, 250);
      const client = await webPubSubClient();
      const bad = await client.client.sendEvent('subscribe', { deviceId, since: -4 }, 'json').catch((e: unknown) => e);
      expect((bad as SendMessageError).errorDetail?.name).toBe('BadRequest');
      expect(hub.app.telemetry.hub.groupsOf(client.connectionId)).not.toContain(`device:${TENANT}:${deviceId}`);
      const stranger = await webPubSubClient('other');
      await stranger.client.sendEvent('subscribe', { deviceId, since: 0 }, 'json');
      await eventually(() => stranger.server.length === 1, 5000, 'the summary');
      expect(stranger.server[0]!.data).toEqual({
        catchUp: { deviceId, since: 0, replayed: 0, truncated: false, last: null },
      });
      expect(stranger.group).toEqual([]);
    });
  });

  describe('with History:Enabled=false (the newest readings kept in memory)', () => {
    let memoryHub: RunningApp;
    beforeAll(async () => {
      memoryHub = await startApp(
        ['--History:Enabled=false', '--Hub:CatchUpMax=5', '--Throttle:MaxPerSecondPerDevice=1000'],
        undefined,
        clock,
      );
    });
    afterAll(async () => memoryHub?.stop());

    it('replays the missed readings it kept, the newest Hub:CatchUpMax, then live', async () => {
      expect(memoryHub.app.history).toBeUndefined();
      const device = await connectDevice(memoryHub.brokerUrl!, TENANT, 'silo-1');
      devices.push(device);
      for (let seq = 1; seq <= 8; seq++) {
        await device.publishAsync(`tenants/${TENANT}/devices/silo-1/telemetry`, JSON.stringify({ level: seq }));
        await eventually(
          () => memoryHub.app.telemetry.registry.last(TENANT, 'silo-1')?.seq === seq,
          5000,
          `seq ${seq} accepted`,
        );
        clock.advance(10);
      }
      const socket = await connectTelemetry(memoryHub.url, await userToken(TENANT));
      sockets.push(socket);
      const seqs: number[] = [];
      socket.on('reading', (r: WireReading) => seqs.push(r.seq));
      expect(await socket.emitWithAck('subscribe', { deviceId: 'silo-1', since: 1 })).toMatchObject({
        ok: true,
        replayed: 5,
        truncated: true,
      });
      await device.publishAsync(`tenants/${TENANT}/devices/silo-1/telemetry`, JSON.stringify({ level: 9 }));
      await eventually(() => seqs.length === 6, 5000, 'replay and live');
      expect(seqs).toEqual([4, 5, 6, 7, 8, 9]);
    });
  });
});
