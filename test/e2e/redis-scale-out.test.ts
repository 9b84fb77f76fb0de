import mqtt from 'mqtt';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HubOutboundMessage, readingMessage } from '../../src/wire/outbound-message.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { requireService } from '../support/services.js';

const run = `${process.pid}-${Date.now().toString(36)}`;

describe('scale-out across two instances over Redis', () => {
  let available = false;
  const apps: RunningApp[] = [];
  const sockets: Socket[] = [];

  beforeAll(async () => {
    available = (await requireService('Redis', 6379)) && (await requireService('Mosquitto', 1883));
    if (!available) return;
    for (const name of ['a', 'b']) {
      apps.push(
        await startApp([
          '--ConnectionStrings:redis=redis://127.0.0.1:6379',
          '--ConnectionStrings:mqtt=mqtt://127.0.0.1:1883',
          `--Ingestion:Mqtt:ClientId=scale-${name}-${run}`,
          `--Hub:Name=scale${run.replace(/[^A-Za-z0-9]/g, '')}`,
        ]),
      );
    }
    for (const app of apps) await eventually(() => app.app.telemetry.ingestion.connected, 5000, 'mqtt connected');
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const app of apps) await app.stop();
  });

  it('a reading sent to its group on one instance reaches subscribers on the other as a reading', async ({ skip }) => {
    if (!available) return skip();
    const [a, b] = apps as [RunningApp, RunningApp];
    const socket = await connectTelemetry(b.url, await userToken('scale'));
    sockets.push(socket);
    await socket.emitWithAck('subscribe', { deviceId: 'x1' });
    const got: unknown[] = [];
    socket.on('reading', (r) => got.push(r));
    const data = { tenantId: 'scale', deviceId: 'x1', seq: 1, ts: 1, receivedAt: 1, data: { via: 'a' } };
    a.app.telemetry.hub.sendToGroup('device:scale:x1', readingMessage(data));
    await eventually(() => got.length === 1, 3000, 'message from the other instance');
    expect(got[0]).toEqual(data);
  });

  it('an MQTT reading reaches a subscriber on the other instance exactly once (the lease holder ingests it and relays it)', async ({
    skip,
  }) => {
    if (!available) return skip();
    const socket = await connectTelemetry(apps[1]!.url, await userToken(`scale-${run}`));
    sockets.push(socket);
    await socket.emitWithAck('subscribe', { deviceId: 'once' });
    const got: { data: Record<string, unknown> }[] = [];
    socket.on('reading', (r: { data: Record<string, unknown> }) => got.push(r));
    // The marker below is a management-style send, so socket.io gets it as a `message` event.
    let marker = false;
    socket.on(
      'message',
      (m: { data: { data?: Record<string, unknown> } }) => (marker ||= m.data.data?.['marker'] === true),
    );
    const device = await mqtt.connectAsync('mqtt://127.0.0.1:1883', { clientId: `scale-dev-${run}` });
    await device.publishAsync(`tenants/scale-${run}/devices/once/telemetry`, JSON.stringify({ v: 1 }), { qos: 1 });
    await eventually(() => got.length >= 1, 3000, 'reading');
    // Barrier: once A (the lease holder, started first) has taken the reading, a marker A sends to
    // the group after it travels the reading's path (A's backplane, then B), so a second copy would arrive first.
    const [a] = apps as [RunningApp, RunningApp];
    await eventually(
      () => a.app.telemetry.registry.last(`scale-${run}`, 'once') !== undefined,
      3000,
      'A ingested the reading',
    );
    const group = `device:scale-${run}:once`;
    a.app.telemetry.hub.sendToGroup(
      group,
      new HubOutboundMessage({ kind: 'group', group }, 'json', {
        tenantId: `scale-${run}`,
        deviceId: 'once',
        data: { marker: true },
      }),
    );
    await eventually(() => marker, 3000, 'the marker from A');
    expect(got.filter((m) => m.data?.['v'] === 1)).toHaveLength(1);
    await device.endAsync();
  });

  it('readiness reports Redis', async ({ skip }) => {
    if (!available) return skip();
    const body = (await (await fetch(`${apps[0]!.url}/health/ready`)).json()) as {
      checks: { name: string; status: string }[];
    };
    expect(body.checks).toContainEqual(expect.objectContaining({ name: 'redis', status: 'Healthy' }));
  });
});

// Redis down at start or lost while running: test/e2e/redis-outage.test.ts.
