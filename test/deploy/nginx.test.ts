import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../support/app-harness.js';
import { connectDevice } from '../support/mqtt-device.js';
import { privateNginx } from '../support/private-nginx.js';
import { requireCommand } from '../support/private-server.js';
import { startOfficialClient } from '../support/web-pubsub-client.js';
import { startHubProcess, type HubProcess } from '../support/hub-stamps.js';

describe('behind nginx (deploy/nginx/telemetry-hub.conf, Debian nginx, real hub process)', () => {
  const available = requireCommand('nginx', "the nginx hosting tests run Debian's nginx");
  let hub: HubProcess;
  let nginx: Awaited<ReturnType<typeof privateNginx>>;
  let base: string;
  const closers: (() => unknown)[] = [];

  beforeAll(async () => {
    if (!available) return;
    hub = await startHubProcess();
    nginx = await privateNginx([new URL(hub.url).host]);
    await nginx.start();
    base = `http://127.0.0.1:${nginx.port}`;
  }, 60_000);

  afterAll(async () => {
    for (const close of closers) await close();
    await nginx?.dispose();
    await hub?.stop();
  });

  const publish = async (n: number) => {
    const device = await connectDevice(hub.brokerUrl, 'demo', 'ngx-1');
    await device.publishAsync('tenants/demo/devices/ngx-1/telemetry', JSON.stringify({ n }), { qos: 1 });
    await device.endAsync();
  };

  it('forwards proto and host: negotiate answers a ws:// URL on nginx’s address, whatever the client claims', async ({
    skip,
  }) => {
    if (!available) return skip();
    const res = await fetch(`${base}/api/negotiate`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await userToken('demo')}`,
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
      },
    });
    expect(res.status, nginx.errorLog()).toBe(200);
    const { url } = (await res.json()) as { url: string };
    expect(url.startsWith(`ws://127.0.0.1:${nginx.port}/client/hubs/telemetry?access_token=`)).toBe(true);
  });

  it('socket.io over WebSocket and over long-polling receives live readings', async ({ skip }) => {
    if (!available) return skip();
    const token = await userToken('demo');
    for (const [i, transports] of [
      [1, ['websocket']],
      [2, ['polling']],
    ] as const) {
      const socket: Socket = io(`${base}/telemetry`, {
        auth: { token },
        transports: [...transports],
        reconnection: false,
      });
      closers.push(() => socket.close());
      await new Promise<void>(
        (resolve, reject) => (socket.once('connect', resolve), socket.once('connect_error', reject)),
      );
      const got: number[] = [];
      socket.on('reading', (r: { data: { n: number } }) => got.push(r.data.n));
      expect(((await socket.emitWithAck('subscribe', { deviceId: 'ngx-1' })) as { ok: boolean }).ok).toBe(true);
      await publish(100 + i);
      await eventually(() => got.includes(100 + i), 5000, `a reading over ${transports[0]}`);
      socket.close();
    }
  });

  it('the official Web PubSub client (reliable protocol) connects through nginx and receives readings', async ({
    skip,
  }) => {
    if (!available) return skip();
    const subscriber = await startOfficialClient(
      {
        getClientAccessUrl: async () => {
          const res = await fetch(`${base}/api/negotiate`, {
            method: 'POST',
            headers: { authorization: `Bearer ${await userToken('demo')}` },
          });
          return ((await res.json()) as { url: string }).url;
        },
      },
      true,
    );
    closers.push(() => subscriber.client.stop());
    await subscriber.client.joinGroup('device:demo:ngx-1');
    await publish(200);
    await eventually(() => subscriber.readings().some((r) => r.data['n'] === 200), 5000, 'a reading through nginx');
  });

  it('the hub logs the caller’s trace id through nginx', async ({ skip }) => {
    if (!available) return skip();
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const res = await fetch(`${base}/v1/devices`, {
      headers: { authorization: `Bearer ${await userToken('demo')}`, traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    });
    expect(res.status).toBe(200);
    await eventually(() => hub.output().includes(traceId), 3000, 'the trace id in the hub log');
  });
});
