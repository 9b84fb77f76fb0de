import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../../support/app-harness.js';
import { connectClient, startServerlessApp, subscribe, type ServerlessApp } from './serverless-harness.js';

let hub: ServerlessApp;

beforeAll(async () => {
  hub = await startServerlessApp();
});
afterAll(async () => {
  await hub?.stop();
});

describe('json.reliable.webpubsub.azure.v1 over the serverless flow', () => {
  it('delivers the readings sent while the socket was cut, after the automatic reconnect, in order', async () => {
    const token = await userToken('t1');
    const c = await connectClient(hub.url, token, true);
    try {
      expect((await subscribe(hub.url, token, { connectionId: c.connectionId, deviceId: 'rel' })).status).toBe(204);
      await hub.publish('t1', 'rel', { n: 1 });
      await eventually(() => c.group.length === 1, 5000, 'first reading');

      // The network fails: the server-side socket dies without a close frame.
      const socket = hub.upgrades.at(-1)!;
      const upgradesBefore = hub.upgrades.length;
      socket.destroy();
      await hub.publish('t1', 'rel', { n: 2 });
      await hub.publish('t1', 'rel', { n: 3 });

      await eventually(() => c.group.length === 3, 10_000, 'readings after the reconnect');
      expect(c.readings().map((r) => [r.seq, r.data['n']])).toEqual([
        [1, 1],
        [2, 2],
        [3, 3],
      ]);
      expect(c.group.map((m) => m.sequenceId)).toEqual([1, 2, 3]);
      // Recovered, not reconnected: same session, a second upgrade, no second `connected`.
      expect(hub.upgrades.length).toBeGreaterThan(upgradesBefore);
      expect(c.connectedEvents).toBe(1);
      expect(hub.running.app.telemetry.hub.groupsOf(c.connectionId)).toEqual(['owner:t1:user-t1', 'device:t1:rel']);

      await hub.publish('t1', 'rel', { n: 4 });
      await eventually(() => c.group.length === 4, 5000, 'live again');
    } finally {
      c.client.stop();
    }
  });
});
