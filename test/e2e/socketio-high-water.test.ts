import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireReading } from '../../src/wire/reading.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { DeviceFleet } from '../support/mqtt-device.js';

/** The net.Socket under a socket.io-client's WebSocket transport (engine.io-client uses `ws` in Node). */
function tcpSocketOf(socket: Socket): { pause(): void; resume(): void } {
  const engine = socket.io.engine as unknown as {
    transport: { name: string; ws: { _socket: { pause(): void; resume(): void } } };
  };
  expect(engine.transport.name).toBe('websocket');
  return engine.transport.ws._socket;
}

describe('socket.io slow consumer following many devices', () => {
  let hub: RunningApp;

  beforeAll(async () => {
    hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000', '--Ingestion:Mqtt:MaxConnectionsPerIp=1000']);
  });

  afterAll(async () => {
    await hub?.stop();
  });

  it("a stalled official client following 200 busy devices ends with every device's newest seq", async () => {
    const tenant = 'highwater';
    const devices = Array.from({ length: 200 }, (_, i) => `hw-${String(i).padStart(3, '0')}`);
    const publisher = new DeviceFleet(hub.brokerUrl!);
    await Promise.all(devices.map((d) => publisher.client(tenant, d)));
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');

    const client = await connectTelemetry(hub.url, await userToken(tenant));
    const newest = new Map<string, number>();
    let received = 0;
    client.on('reading', (r: WireReading) => {
      received++;
      if (r.seq > (newest.get(r.deviceId) ?? -1)) newest.set(r.deviceId, r.seq);
    });
    for (const deviceId of devices) {
      const ack = (await client.emitWithAck('subscribe', { deviceId })) as { ok: boolean };
      expect(ack.ok).toBe(true);
    }
    // The client stops reading: kernel buffers fill, engine.io's writes stay unflushed, and the
    // connection crosses its high-water mark again and again while every device keeps sending.
    const tcp = tcpSocketOf(client);
    tcp.pause();

    const filler = 'x'.repeat(2000);
    const rounds = 30;
    const registry = hub.app.telemetry.registry;
    // Round by round, each taken in by the hub before the next: the stalled connection keeps being
    // offered readings while its buffers are full.
    for (let round = 0; round < rounds; round++) {
      for (const deviceId of devices)
        publisher.publish(`tenants/${tenant}/devices/${deviceId}/telemetry`, JSON.stringify({ round, filler }));
      await eventually(
        () => devices.every((d) => registry.last(tenant, d)?.data.round === round),
        15_000,
        `round ${round} accepted by the hub`,
      );
    }
    const expected = new Map(devices.map((d) => [d, registry.last(tenant, d)!.seq]));

    tcp.resume();
    const missing = () => devices.filter((d) => newest.get(d) !== expected.get(d));
    await eventually(() => missing().length === 0, 10_000, 'the newest reading of every device').catch((err: Error) => {
      throw new Error(`${err.message}; missing the newest reading of ${missing().join(', ')}`);
    });
    // It was a slow consumer indeed: readings were conflated, not all delivered.
    expect(received).toBeLessThan(devices.length * rounds);
    expect(client.connected).toBe(true);
    client.close();
    await publisher.endAsync();
  }, 60_000);
});
