import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_MAIN, startChildHub, type ChildHub } from '../../../support/child-hub.js';
import { privateNginx } from '../../../support/private-nginx.js';
import { requireCommand } from '../../../support/private-server.js';
import { ACCESS_KEY, startHubProcess, type HubProcess } from '../../../support/hub-stamps.js';

// Issue 25 item 3: the WebSocket handshake budget is per client, also behind nginx and the
// gateway: the hub believes X-Forwarded-For from its trusted proxies (Http:TrustedProxies), so one
// client cannot spend every other client's handshakes. The clients come from two loopback addresses.

const hasNginx = requireCommand('nginx', 'the handshake budget is tried behind nginx');

/** A WebSocket handshake (no token: the budget is spent before any token is read) from `localAddress`; its status. */
function handshake(base: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/client/hubs/telemetry`, {
      localAddress,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'sec-websocket-version': '13',
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      resolve(101);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('handshake budget per client behind proxies (real hub, gateway and nginx processes)', () => {
  let hub: HubProcess;
  let gateway: ChildHub;
  let nginx: Awaited<ReturnType<typeof privateNginx>> | undefined;

  beforeAll(async () => {
    // A budget of 2 handshakes per client, refilled at 1 per second; the proxies run on 127.0.0.1.
    hub = await startHubProcess(['--Http:WebSocketUpgradesPerIpPerSecond=1', '--Http:WebSocketUpgradeBurstPerIp=2']);
    gateway = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        `--Gateway:Stamps=pool=${hub.url}`,
        '--Gateway:DefaultStamp=pool',
        `--Hub:AccessKey=${ACCESS_KEY}`,
        '--Gateway:HealthIntervalSeconds=0.2',
      ],
      {},
      30_000,
      GATEWAY_MAIN,
    );
    if (hasNginx) {
      nginx = await privateNginx([new URL(hub.url).host]);
      await nginx.start();
    }
  }, 90_000);

  afterAll(async () => {
    await nginx?.dispose();
    await gateway?.stop();
    await hub?.stop();
  });

  const fronts = () => [
    { name: 'the gateway', url: gateway.url, clients: ['127.0.0.2', '127.0.0.3'] },
    ...(nginx ? [{ name: 'nginx', url: `http://127.0.0.1:${nginx.port}`, clients: ['127.0.0.4', '127.0.0.5'] }] : []),
  ];

  it('one client exhausting its handshakes leaves another client behind the same proxy unaffected', async () => {
    for (const front of fronts()) {
      const [greedy, other] = front.clients as [string, string];
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push(await handshake(front.url, greedy));
      // Admitted handshakes fail on the missing token (401); past the budget they are refused first (429).
      expect(statuses, front.name).toContain(429);
      expect(await handshake(front.url, other), `${front.name}: the other client`).toBe(401);
    }
  });
});
