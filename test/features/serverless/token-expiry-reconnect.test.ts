import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUserToken } from '../../../src/host/security/jwt-bearer.js';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../../src/host/security/dev-defaults.js';
import { eventually, startApp, type RunningApp } from '../../support/app-harness.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { DeviceFleet } from '../../support/mqtt-device.js';
import { startOfficialClient, type Subscriber } from '../../support/web-pubsub-client.js';
import { negotiate, subscribe } from './serverless-harness.js';

/**
 * README "Live connections", Web PubSub: the connection closes (1008) when its token expires; the
 * official client, whose access URL comes from a function, negotiates again with a fresh user token,
 * and the dashboard re-subscribes its devices on the new connection's `connected` event.
 */
describe('Web PubSub: a connection whose token expires comes back through a fresh negotiate, with its devices', () => {
  const clock = new ManualClock(Date.now());
  let hub: RunningApp;
  let device: DeviceFleet;

  beforeAll(async () => {
    hub = await startApp(['--Throttle:MaxPerSecondPerDevice=1000', '--Auth:Jwt:ClockSkewSeconds=0'], undefined, clock);
    device = new DeviceFleet(hub.brokerUrl!);
    await eventually(() => hub.app.telemetry.ingestion.connected, 5000, 'ingestion connected');
  });
  afterAll(async () => {
    await device?.endAsync();
    await hub?.stop();
  });

  it('renegotiates with a new token and receives the device again after re-subscribing', async () => {
    clock.setWallTime(Date.now());
    // The dashboard's token source: a short-lived token, minted anew on each request.
    const tokens: string[] = [];
    const freshToken = async () => {
      const token = await signUserToken({
        sub: 'alice',
        tenantId: 't1',
        secret: DEV_JWT_SECRET,
        issuer: DEV_JWT_ISSUER,
        audience: DEV_JWT_AUDIENCE,
        expiresInSeconds: 60,
        now: clock.now(),
      });
      tokens.push(token);
      return token;
    };
    let c: Subscriber | undefined;
    const subscribedOn: string[] = [];
    // As the dashboard does on every new connection id: subscribe every wanted device through /api/subscribe.
    const resubscribe = async (connectionId: string) => {
      const res = await subscribe(hub.url, tokens.at(-1), { connectionId, deviceId: 'exp-dev' });
      expect(res.status).toBe(204);
      subscribedOn.push(connectionId);
    };
    try {
      c = await startOfficialClient(
        {
          getClientAccessUrl: async () => {
            const res = await negotiate(hub.url, await freshToken());
            if (res.status !== 200) throw new Error(`negotiate answered ${res.status}`);
            return ((await res.json()) as { url: string }).url;
          },
        },
        true,
      );
      const first = c.connectionId;
      c.client.on('connected', (e) => void resubscribe(e.connectionId));
      await resubscribe(first);
      await device.publishAsync('tenants/t1/devices/exp-dev/telemetry', JSON.stringify({ n: 1 }), { qos: 1 });
      await eventually(() => c!.group.length === 1, 5000, 'first reading');

      clock.advance(61_000); // past the first token's expiry: the hub closes the connection with 1008
      await eventually(() => subscribedOn.length === 2, 10_000, 'a new connection, subscribed again');
      expect(tokens).toHaveLength(2);
      expect(c.connectionId).not.toBe(first);
      expect(subscribedOn).toEqual([first, c.connectionId]);
      expect(hub.app.telemetry.hub.hasConnection(first)).toBe(false);

      await device.publishAsync('tenants/t1/devices/exp-dev/telemetry', JSON.stringify({ n: 2 }), { qos: 1 });
      await eventually(() => c!.group.length === 2, 5000, 'reading on the new connection');
      expect(c.readings().map((r) => r.data['n'])).toEqual([1, 2]);
    } finally {
      c?.client.stop();
    }
  });
});
