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
    const expected = Array.from({ length: 10 }, (_, i) => `sim-${String(i + 1).padStart(3, '0')}`);
    const authorization = `Bearer ${await userToken('demo')}`;
    let ids: string[] = [];
    // Each simulated device first reports within its first period (1 s).
    for (let attempt = 0; attempt < 30 && ids.length < expected.length; attempt++) {
      const res = await fetch(`${hub.url}/v1/devices?limit=500`, { headers: { authorization } });
      expect(res.status).toBe(200);
      ids = ((await res.json()) as { items: { deviceId: string }[] }).items.map((i) => i.deviceId);
      if (ids.length < expected.length) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ids).toEqual(expected);
    const anonymous = await fetch(`${hub.url}/v1/devices`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });
});
