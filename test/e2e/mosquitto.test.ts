import mqtt from 'mqtt';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';
import { requireService } from '../support/services.js';

const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const run = `${process.pid}-${Date.now().toString(36)}`;

describe('MQTT ingestion through a real Mosquitto broker', () => {
  let available = false;
  const cleanup: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    available = await requireService('Mosquitto', 1883);
  });

  afterEach(async () => {
    while (cleanup.length) await cleanup.pop()!().catch(() => undefined);
  });

  async function hubOnMosquitto(clientId: string, extra: string[] = [], clock?: ManualClock): Promise<RunningApp> {
    const hub = await startApp(
      [`--ConnectionStrings:mqtt=${MOSQUITTO}`, `--Ingestion:Mqtt:ClientId=${clientId}`, ...extra],
      undefined,
      clock,
    );
    cleanup.push(() => hub.stop());
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'connected to mosquitto');
    return hub;
  }

  it('delivers MQTT 5 readings (QoS 0 and 1) to socket.io subscribers', async ({ skip }) => {
    if (!available) return skip();
    const tenant = `mq-${run}`;
    const clock = new ManualClock(Date.now());
    const hub = await hubOnMosquitto(`hub-a-${run}`, [], clock);
    const socket = await connectTelemetry(hub.url, await userToken(tenant));
    cleanup.push(async () => socket.close());
    const got: { data: { q: number } }[] = [];
    socket.on('reading', (r: { data: { q: number } }) => got.push(r));
    await socket.emitWithAck('subscribe', { deviceId: 'd1' });
    const device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `dev-${run}` });
    cleanup.push(() => device.endAsync());
    await device.publishAsync(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ q: 0 }), { qos: 0 });
    await eventually(() => got.length === 1, 3000, 'QoS 0 reading');
    clock.advance(210); // past the throttle interval: the next reading goes out at once
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await device.publishAsync(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ q: 1 }), {
      qos: 1,
      properties: { userProperties: { traceparent } },
    });
    await eventually(() => got.length === 2, 3000, 'QoS 1 reading');
    expect(got.map((r) => r.data.q)).toEqual([0, 1]);
    // The device's trace travels with the accepted reading (never to subscribers).
    // The device's MQTT 5 trace context travels with the accepted reading, never to subscribers.
    expect(hub.app.telemetry.registry.last(tenant, 'd1')).toMatchObject({ seq: 2, traceparent });
    expect(got[1]).not.toHaveProperty('traceparent');
  });

  it('keeps a persistent QoS 1 session: readings published while the hub was down arrive after restart', async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `mp-${run}`;
    const clientId = `hub-persist-${run}`;
    const first = await hubOnMosquitto(clientId);
    await first.stop();
    cleanup.pop();

    const device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `devp-${run}` });
    cleanup.push(() => device.endAsync());
    for (let n = 0; n < 3; n++) {
      await device.publishAsync(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ n }), { qos: 1 });
    }
    const second = await hubOnMosquitto(clientId);
    await eventually(
      () => second.app.telemetry.registry.last(tenant, 'd1')?.data.n === 2,
      5000,
      'missed readings after restart',
    );
    expect(second.app.telemetry.registry.last(tenant, 'd1')?.seq).toBe(3);
  });

  it('reconnects and resubscribes after the broker drops the connection', async ({ skip }) => {
    if (!available) return skip();
    const tenant = `mr-${run}`;
    const clientId = `hub-reconnect-${run}`;
    const hub = await hubOnMosquitto(clientId);
    // A second client with the same id makes the broker drop the hub's connection (MQTT "session takeover").
    const usurper = await mqtt.connectAsync(MOSQUITTO, {
      protocolVersion: 5,
      clientId,
      clean: true,
      reconnectPeriod: 0,
    });
    await usurper.endAsync();
    await eventually(() => hub.app.telemetry.ingestion.connected, 10_000, 'reconnected');
    const device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `devr-${run}` });
    cleanup.push(() => device.endAsync());
    await eventually(
      () => {
        device.publish(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ ok: true }));
        return hub.app.telemetry.registry.last(tenant, 'd1') !== undefined;
      },
      10_000,
      'readings after resubscribe',
    );
  });
});
