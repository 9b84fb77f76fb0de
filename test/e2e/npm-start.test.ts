import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, userToken } from '../support/app-harness.js';
import { startChildHub, type ChildHub } from '../support/child-hub.js';

// What `npm start` runs, on ephemeral ports so the test never collides with a running hub.
describe('npm start (Development, embedded defaults) as a real process', () => {
  let hub: ChildHub;

  beforeAll(async () => {
    hub = await startChildHub(['--environment=Development', '--Http:Port=0', '--Ingestion:Mqtt:EmbeddedPort=0']);
  });

  afterAll(async () => {
    const code = await hub?.stop();
    expect(code).toBe(0);
  });

  it('a socket.io client subscribed to a simulator device receives readings within 2 s', async () => {
    const socket = await connectTelemetry(hub.url, await userToken('demo'));
    try {
      const started = Date.now();
      const first = new Promise<{ deviceId: string }>((resolve) => socket.once('reading', resolve));
      const ack = (await socket.emitWithAck('subscribe', { deviceId: 'sim-001' })) as { ok: boolean };
      expect(ack.ok).toBe(true);
      const reading = await Promise.race([first, new Promise<null>((r) => setTimeout(() => r(null), 2000))]);
      expect(reading, 'a reading within 2 s').not.toBeNull();
      expect(reading!.deviceId).toBe('sim-001');
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      socket.close();
    }
  });

  it('lists the simulator devices sim-001 … sim-010 for the demo tenant', async () => {
    const res = await fetch(`${hub.url}/v1/devices?limit=500`, { headers: { authorization: `Bearer ${await userToken('demo')}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: { deviceId: string }[] };
    expect(body.items.map((i) => i.deviceId)).toEqual(Array.from({ length: 10 }, (_, i) => `sim-${String(i + 1).padStart(3, '0')}`));
  });
});
