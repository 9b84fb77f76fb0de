import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireReading } from '../../../src/wire/reading.js';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { connectDevice } from '../../support/mqtt-device.js';

/**
 * On the WebSocket transport the hub writes its prebuilt socket.io frames straight to the TCP
 * socket; long polling and an upgrade in progress take engine.io's path. Whichever path a
 * reading takes, a client sees every reading once and in order, and the session stays a normal
 * socket.io session (acks, hub_closed).
 */
describe('socket.io hub frames written straight to the WebSocket', () => {
  let hub: RunningApp;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000']);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await hub?.stop();
  });

  async function open(transports: ('polling' | 'websocket')[]): Promise<Socket> {
    const socket = io(`${hub.url}/telemetry`, {
      auth: { token: await userToken('direct') },
      transports,
      reconnection: false,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    return socket;
  }

  /** Subscribes, publishes `count` readings over MQTT while `during` runs, and returns the `i`s received. */
  async function stream(socket: Socket, deviceId: string, count: number): Promise<number[]> {
    const got: number[] = [];
    socket.on('reading', (r: WireReading) => {
      if (r.deviceId === deviceId) got.push((r.data as { i: number }).i);
    });
    const ack = (await socket.emitWithAck('subscribe', { deviceId })) as { ok: boolean };
    expect(ack.ok).toBe(true);
    const device = await connectDevice(hub.brokerUrl!, 'direct', deviceId);
    const pipeline = hub.app.telemetry.pipeline;
    // Each reading leaves the throttle before the next is published: none is conflated.
    for (let i = 0; i < count; i++) {
      const emitted = pipeline.stats().emitted;
      await device.publishAsync(`tenants/direct/devices/${deviceId}/telemetry`, JSON.stringify({ i }));
      await eventually(() => pipeline.stats().emitted > emitted, 5000, `reading ${i} emitted`);
    }
    await device.endAsync();
    await eventually(() => got.length >= count, 10_000, `${count} readings`).catch((err: Error) => {
      throw new Error(`${err.message}: got ${got.length}, stats ${JSON.stringify(hub.app.telemetry.pipeline.stats())}`);
    });
    return got;
  }

  const inOrder = (count: number) => Array.from({ length: count }, (_, i) => i);

  it('a long-polling client gets every reading in order (engine.io path)', async () => {
    const socket = await open(['polling']);
    expect(await stream(socket, 'poll-1', 200)).toEqual(inOrder(200));
    expect(socket.io.engine.transport.name).toBe('polling');
  });

  it('a client upgrading from polling to WebSocket while readings flow gets each once, in order', async () => {
    const socket = await open(['polling', 'websocket']);
    // Readings start before the upgrade completes: the first go by polling, the rest straight to the WebSocket.
    expect(await stream(socket, 'upgrade-1', 400)).toEqual(inOrder(400));
    expect(socket.io.engine.transport.name).toBe('websocket');
  });

  it('on the WebSocket transport, acks answer between readings and hub_closed ends the stream', async () => {
    const socket = await connectTelemetry(hub.url, await userToken('direct'));
    sockets.push(socket);
    expect(await stream(socket, 'ws-1', 300)).toEqual(inOrder(300));
    const ack = (await socket.emitWithAck('subscribe', { deviceId: 'ws-2' })) as { ok: boolean };
    expect(ack.ok).toBe(true);
    const closed = new Promise<unknown>((resolve) => socket.once('hub_closed', resolve));
    const [entry] = hub.app.telemetry.hub.membersOf('device:direct:ws-2');
    hub.app.telemetry.hub.closeConnection(entry!.connectionId, 'kicked');
    expect(await closed).toEqual({ reason: 'kicked' });
  });
});
