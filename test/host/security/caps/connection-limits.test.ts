import type { Socket } from 'socket.io-client';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../../support/app-harness.js';
import { clientUrl } from './caps-support.js';

// Hub:MaxConnectionsPerUser and Hub:MaxConnectionsPerTenant, over socket.io and Web PubSub together.
let running: RunningApp;
const sockets: Socket[] = [];

beforeAll(async () => {
  running = await startApp(['--Hub:MaxConnectionsPerUser=2', '--Hub:MaxConnectionsPerTenant=3']);
});

afterAll(async () => {
  for (const s of sockets) s.close();
  await running.stop();
});

async function connect(tenant: string, sub: string): Promise<Socket> {
  const socket = await connectTelemetry(running.url, await userToken(tenant, { sub }));
  sockets.push(socket);
  return socket;
}

/** The HTTP status a Web PubSub upgrade was refused with (0 when it connected), and the problem body. */
function upgrade(url: string): Promise<{ status: number; body: Record<string, unknown> | undefined; ws?: WebSocket }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'json.webpubsub.azure.v1');
    ws.once('open', () => resolve({ status: 0, body: undefined, ws }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    ws.once('error', reject);
  });
}

describe('connection limits', () => {
  it('refuses a user past Hub:MaxConnectionsPerUser on socket.io with connect_error HUB_ERR_HUB_LIMIT, and on Web PubSub with 429', async () => {
    const first = await connect('ta', 'alice');
    await connect('ta', 'alice');
    await expect(connect('ta', 'alice')).rejects.toMatchObject({ data: { code: 'HUB_ERR_HUB_LIMIT' } });
    // The same user across transports: Web PubSub counts too.
    const refused = await upgrade(await clientUrl(running, { userId: 'alice', tenantId: 'ta' }));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'HUB_ERR_HUB_LIMIT', status: 429 });
    // A user of the same name in another tenant is another user.
    await connect('tb', 'alice');

    first.close();
    await eventually(() => running.app.telemetry.hub.connectionCount === 2, 5000, 'first connection gone');
    await connect('ta', 'alice');
  });

  it('refuses a tenant past Hub:MaxConnectionsPerTenant, whoever the user', async () => {
    await connect('tc', 'u1');
    await connect('tc', 'u2');
    const wps = await upgrade(await clientUrl(running, { userId: 'u3', tenantId: 'tc' }));
    expect(wps.status).toBe(0);
    await expect(connect('tc', 'u4')).rejects.toMatchObject({ data: { code: 'HUB_ERR_HUB_LIMIT' } });
    const refused = await upgrade(await clientUrl(running, { userId: 'u5', tenantId: 'tc' }));
    expect(refused.status).toBe(429);
    wps.ws!.close();
    await eventually(() => !running.app.telemetry.hub.connectionLimit('u4', 'tc'), 5000, 'a slot of tenant tc');
    await connect('tc', 'u4');
  });
});
