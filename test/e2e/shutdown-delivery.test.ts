import { describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken } from '../support/app-harness.js';
import { DeviceFleet } from '../support/mqtt-device.js';

describe('shutdown order of the main job', () => {
  it('delivers a reading the throttle still held before the hub closes the subscriber’s socket', async () => {
    // 1 reading/s per device: the second reading waits in the throttle for up to a second.
    const hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1']);
    const device = new DeviceFleet(hub.brokerUrl!);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
    const socket = await connectTelemetry(hub.url, await userToken('sd'));
    const events: string[] = [];
    socket.on('reading', (r: { data: { n: number } }) => events.push(`reading ${r.data.n}`));
    socket.on('disconnect', () => events.push('disconnect'));
    await socket.emitWithAck('subscribe', { deviceId: 'd1' });

    await device.publishAsync('tenants/sd/devices/d1/telemetry', JSON.stringify({ n: 1 }), { qos: 1 });
    await eventually(() => events.includes('reading 1'), 3000, 'first reading');
    await device.publishAsync('tenants/sd/devices/d1/telemetry', JSON.stringify({ n: 2 }), { qos: 1 });
    // Accepted (the registry has it) but held back by the throttle.
    await eventually(() => hub.app.telemetry.registry.last('sd', 'd1')?.data.n === 2, 3000, 'second reading accepted');
    expect(events).toEqual(['reading 1']);

    await device.endAsync();
    await hub.stop();
    await eventually(() => events.includes('disconnect'), 3000, 'socket closed by the shutdown');
    expect(events).toEqual(['reading 1', 'reading 2', 'disconnect']);
    socket.close();
  });
});
