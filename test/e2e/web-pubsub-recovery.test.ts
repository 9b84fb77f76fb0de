import type { MqttClient } from 'mqtt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cuttableProxy, type CuttableProxy } from '../../bench/soak/tcp-proxy.js';
import { ManualClock } from '../../src/adapters/memory/manual-clock.js';
import { WEB_PUBSUB_ENDPOINT } from '../../src/compose/app-service-keys.js';
import { eventually, startApp, userToken, type RunningApp } from '../support/app-harness.js';
import { connectDevice } from '../support/mqtt-device.js';
import { startOfficialClient, type Subscriber } from '../support/web-pubsub-client.js';

const TENANT = 'recover';
const CATCH_UP_MAX = 12;

/**
 * A reliable Web PubSub session whose TCP connection is cut (both sides reset, new connections
 * refused for a while) and then recovered by the official client: what its followed devices sent
 * during the cut reaches it after recovery. Readings come from real MQTT devices through the
 * hub's ingestion; the hub's clock is a ManualClock moved per reading, so the throttle passes each.
 */
describe('reliable Web PubSub session recovered after a network cut', () => {
  const clock = new ManualClock(Date.now());
  let hub: RunningApp;
  const devices: MqttClient[] = [];
  const subscribers: Subscriber[] = [];
  const proxies: CuttableProxy[] = [];

  beforeAll(async () => {
    hub = await startApp([`--Hub:CatchUpMax=${CATCH_UP_MAX}`], undefined, clock);
  });
  afterEach(async () => {
    for (const s of subscribers.splice(0)) s.client.stop();
    for (const p of proxies.splice(0)) await p.close();
  });
  afterAll(async () => {
    for (const d of devices) await d.endAsync();
    await hub?.stop();
  });

  async function device(deviceId: string) {
    const client = await connectDevice(hub.brokerUrl!, TENANT, deviceId);
    devices.push(client);
    let seq = 0;
    return async (count: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const expected = ++seq;
        await client.publishAsync(`tenants/${TENANT}/devices/${deviceId}/telemetry`, JSON.stringify({ n: expected }));
        await eventually(
          () => hub.app.telemetry.registry.last(TENANT, deviceId)?.seq === expected,
          5000,
          `${deviceId} seq ${expected} accepted`,
        );
        clock.advance(250);
      }
    };
  }

  /** The official reliable client, negotiated and connected through a proxy the test can cut. */
  async function proxiedSubscriber(): Promise<{ subscriber: Subscriber; proxy: CuttableProxy }> {
    const proxy = await cuttableProxy(Number(new URL(hub.url).port));
    proxies.push(proxy);
    const res = await fetch(`http://127.0.0.1:${proxy.port}/api/negotiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await userToken(TENANT)}` },
    });
    const { url } = (await res.json()) as { url: string };
    const subscriber = await startOfficialClient(url, true);
    subscribers.push(subscriber);
    return { subscriber, proxy };
  }

  /** Resolves once the hub saw the socket die and holds the session for recovery. */
  async function detached(connectionId: string): Promise<void> {
    const endpoint = hub.app.container!.resolve(WEB_PUBSUB_ENDPOINT);
    await eventually(
      () => endpoint.connection(connectionId) !== undefined && endpoint.connection(connectionId)!.socket === undefined,
      5000,
      'the hub holds the detached session',
    );
  }

  const seqsOf = (s: Subscriber, deviceId: string) =>
    s
      .readings()
      .filter((r) => r.deviceId === deviceId)
      .map((r) => r.seq);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

  it('gets every reading of its followed devices sent while it was cut, each once, in seq order', async () => {
    const publishA = await device('meter-a');
    const publishB = await device('meter-b');
    const { subscriber, proxy } = await proxiedSubscriber();
    await subscriber.client.sendEvent('subscribe', { deviceId: 'meter-a' }, 'json');
    await subscriber.client.sendEvent('subscribe', { deviceId: 'meter-b' }, 'json');
    await publishA(2);
    await publishB(2);
    await eventually(() => subscriber.group.length === 4, 5000, 'four live readings');

    proxy.cut(60_000); // healed once everything is published: the whole burst falls in the cut
    await detached(subscriber.connectionId);
    for (let i = 0; i < 8; i++) {
      await publishA(1);
      await publishB(1);
    }
    proxy.heal();

    await eventually(
      () => seqsOf(subscriber, 'meter-a').at(-1) === 10 && seqsOf(subscriber, 'meter-b').at(-1) === 10,
      15_000,
      'the newest readings after recovery',
    );
    await publishA(1);
    await eventually(() => seqsOf(subscriber, 'meter-a').at(-1) === 11, 5000, 'live again');
    // Recovered, not reconnected: the app saw one `connected` and kept its connection id.
    expect(subscriber.connectedEvents).toBe(1);
    expect(seqsOf(subscriber, 'meter-a')).toEqual(range(1, 11));
    expect(seqsOf(subscriber, 'meter-b')).toEqual(range(1, 10));
    expect(subscriber.server.filter((m) => JSON.stringify(m.data).includes('catchUp'))).toEqual([]);
  });

  it(`more missed than Hub:CatchUpMax: the newest ${CATCH_UP_MAX} and a truncated catch-up summary`, async () => {
    const publish = await device('meter-c');
    const { subscriber, proxy } = await proxiedSubscriber();
    await subscriber.client.sendEvent('subscribe', { deviceId: 'meter-c' }, 'json');
    await publish(1);
    await eventually(() => subscriber.group.length === 1, 5000, 'one live reading');

    proxy.cut(60_000); // healed once everything is published: the whole burst falls in the cut
    await detached(subscriber.connectionId);
    await publish(CATCH_UP_MAX + 3);
    proxy.heal();

    await eventually(
      () => seqsOf(subscriber, 'meter-c').at(-1) === CATCH_UP_MAX + 4,
      15_000,
      'the newest reading after recovery',
    );
    expect(subscriber.connectedEvents).toBe(1);
    // What it had before the replay (what reached it live, and what was resent as unacknowledged),
    // then the newest CATCH_UP_MAX: the gap between is what the summary owns up to.
    const seqs = seqsOf(subscriber, 'meter-c');
    const before = seqs.slice(0, -CATCH_UP_MAX);
    expect(before).toEqual(range(1, before.length));
    expect(seqs.slice(-CATCH_UP_MAX)).toEqual(range(5, CATCH_UP_MAX + 4));
    expect(subscriber.server.map((m) => m.data)).toEqual([
      {
        catchUp: {
          deviceId: 'meter-c',
          since: before.at(-1),
          replayed: CATCH_UP_MAX,
          truncated: true,
          last: expect.objectContaining({ deviceId: 'meter-c', seq: CATCH_UP_MAX + 4 }),
        },
      },
    ]);
  });
});
