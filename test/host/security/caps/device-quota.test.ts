import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireReading } from '../../../../src/wire/reading.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../../support/app-harness.js';
import { DeviceFleet } from '../../../support/mqtt-device.js';

// Hub:MaxDevicesPerTenant (with the global Hub:MaxDevices): one tenant inventing device ids cannot
// push another tenant's devices out of the registry or restart their seq.
let running: RunningApp;
let devices: DeviceFleet;
let socket: Socket;

beforeAll(async () => {
  running = await startApp([
    '--Hub:MaxDevicesPerTenant=5',
    '--Hub:MaxDevices=20',
    '--Throttle:MaxPerSecondPerDevice=1000',
  ]);
  devices = new DeviceFleet(running.brokerUrl!);
  await eventually(() => running.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
});

afterAll(async () => {
  socket?.close();
  await devices.endAsync();
  await running.stop();
});

const publish = (tenant: string, id: string, data: object) =>
  devices.publishAsync(`tenants/${tenant}/devices/${id}/telemetry`, JSON.stringify(data), { qos: 1 });

describe('Hub:MaxDevicesPerTenant', () => {
  it("a tenant's flood of new device ids is refused past its quota; another tenant's device keeps its seq", async () => {
    const { pipeline, registry } = running.app.telemetry;
    socket = await connectTelemetry(running.url, await userToken('quiet'));
    const readings: WireReading[] = [];
    socket.on('reading', (r: WireReading) => readings.push(r));
    await publish('quiet', 'keeper', { n: 1 });
    await publish('quiet', 'keeper', { n: 2 });
    await eventually(() => registry.last('quiet', 'keeper')?.seq === 2, 5000, 'keeper at seq 2');
    expect(await socket.emitWithAck('subscribe', { deviceId: 'keeper' })).toMatchObject({ ok: true, last: { seq: 2 } });

    // 30 new ids, more than this tenant's quota and than the whole registry's bound.
    for (let i = 0; i < 30; i++) await publish('noisy', `flood-${i}`, { i });
    await eventually(() => pipeline.stats().dropped.device_limit === 25, 5000, '25 refused devices');
    expect(registry.count('noisy')).toBe(5);
    // The devices it already had keep working.
    await publish('noisy', 'flood-0', { i: 'again' });
    await eventually(() => registry.last('noisy', 'flood-0')?.seq === 2, 5000, 'flood-0 at seq 2');

    await publish('quiet', 'keeper', { n: 3 });
    await eventually(() => readings.some((r) => r.data['n'] === 3), 5000, 'keeper reading 3');
    expect(readings.find((r) => r.data['n'] === 3)!.seq).toBe(3);
    const page = (await (
      await fetch(`${running.url}/v1/devices`, { headers: { authorization: `Bearer ${await userToken('quiet')}` } })
    ).json()) as { items: { deviceId: string }[] };
    expect(page.items.map((i) => i.deviceId)).toEqual(['keeper']);
  });
});
