import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { DeviceFleet } from '../support/mqtt-device.js';

/**
 * A raw engine.io/socket.io client over ws, so the test can stop reading from the socket: a
 * socket.io-client always reads.
 */
async function stalledClient(
  url: string,
  token: string,
  deviceIds: string[],
): Promise<{ ws: WebSocket; resume(done: (readings: unknown[]) => boolean): Promise<unknown[]> }> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`);
  const frames: string[] = [];
  ws.on('message', (data) => {
    const text = data.toString();
    if (text === '2') ws.send('3'); // engine.io ping → pong
    frames.push(text);
  });
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(`40/telemetry,${JSON.stringify({ token })}`);
  await eventually(() => frames.some((f) => f.startsWith('40/telemetry,')), 3000, 'namespace connected');
  for (const [i, deviceId] of deviceIds.entries())
    ws.send(`42/telemetry,${i}["subscribe",${JSON.stringify({ deviceId })}]`);
  await eventually(
    () => frames.filter((f) => f.startsWith('43/telemetry,')).length === deviceIds.length,
    3000,
    'subscribe acks',
  );
  frames.length = 0;
  // Stop reading: the kernel buffers fill, then the server sees a client that never reads.
  (ws as unknown as { _socket: { pause(): void } })._socket.pause();
  return {
    ws,
    /** Reads again until `done` holds for the readings received since the stall. */
    async resume(done) {
      const readings = () =>
        frames.filter((f) => f.startsWith('42/telemetry,')).map((f) => JSON.parse(f.slice('42/telemetry,'.length))[1]);
      (ws as unknown as { _socket: { resume(): void } })._socket.resume();
      await eventually(() => done(readings()), 5000, 'the stalled client to catch up');
      return readings();
    },
  };
}

describe('slow consumers', () => {
  let hub: RunningApp;

  beforeAll(async () => {
    hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000']);
  });

  afterAll(async () => {
    // Also proves shutdown is not held up by a client that stopped reading.
    const started = Date.now();
    await hub?.stop();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a client that never reads keeps only the newest reading per device, and others are not slowed', async () => {
    const device = new DeviceFleet(hub.brokerUrl!);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
    const token = await userToken('slow');
    const stalled = await stalledClient(hub.url, token, ['d0', 'd1']);
    const healthy = await connectTelemetry(hub.url, token);
    await healthy.emitWithAck('subscribe', { deviceId: 'd0' });
    let newestSeen = -1;
    healthy.on('reading', (r: { data: { n: number } }) => (newestSeen = r.data.n));

    // ~8 MB of readings for two devices: far more than the socket buffers hold.
    const filler = 'x'.repeat(2000);
    const total = 2000;
    for (let n = 0; n < total; n++) {
      device.publish(`tenants/slow/devices/d${n % 2}/telemetry`, JSON.stringify({ n, filler }));
      if (n % 100 === 99) await new Promise((r) => setTimeout(r, 20));
    }
    const publishedAt = Date.now();
    await eventually(() => newestSeen === total - 2, 1000, 'the healthy client got the newest d0 reading within 1 s');
    // Delivery to the healthy client stayed prompt throughout, while the other client was stalled.
    expect(Date.now() - publishedAt).toBeLessThan(1000);

    type Delivered = { deviceId: string; data: { n: number } };
    const newest = (readings: Delivered[], id: string) => readings.filter((r) => r.deviceId === id).at(-1)?.data.n;
    const delivered = (await stalled.resume(
      (readings) =>
        newest(readings as Delivered[], 'd0') === total - 2 && newest(readings as Delivered[], 'd1') === total - 1,
    )) as Delivered[];
    // It got far fewer than were sent (conflated), and the newest of each device came through.
    expect(delivered.length).toBeLessThan(total);
    const lastOf = (id: string) => delivered.filter((r) => r.deviceId === id).at(-1)?.data.n;
    expect(lastOf('d0')).toBe(total - 2);
    expect(lastOf('d1')).toBe(total - 1);
    stalled.ws.close();
    healthy.close();
    await device.endAsync();
    // Left stalled on purpose: shutdown (afterAll) must not wait for it to answer the close.
    await stalledClient(hub.url, token, ['d0']);
  }, 30_000);
});
