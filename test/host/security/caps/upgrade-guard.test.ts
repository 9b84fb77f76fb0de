import { Manager } from 'socket.io-client';
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, startApp, userToken, type RunningApp } from '../../../support/app-harness.js';

// Http:WebSocketUpgradesPerIpPerSecond (+ burst) and Http:MaxPendingUpgrades, for Web PubSub
// upgrades and new socket.io sessions alike.
let running: RunningApp | undefined;
const managers: Manager[] = [];

afterEach(async () => {
  for (const m of managers.splice(0)) m.engine?.close();
  await running?.stop();
  running = undefined;
});

interface Answer {
  status: number;
  retryAfter: string | null;
  body: Record<string, unknown> | undefined;
}

/** A Web PubSub upgrade without a token: 401 once admitted, or the guard's refusal. */
function wpsUpgrade(base: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/client/hubs/telemetry`, 'json.webpubsub.azure.v1');
    ws.once('open', () => {
      ws.close();
      resolve({ status: 101, retryAfter: null, body: undefined });
    });
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
          body: JSON.parse(text) as Record<string, unknown>,
        }),
      );
    });
    ws.once('error', reject);
  });
}

/** The first request of a new socket.io session (Engine.IO polling handshake). */
async function socketIoHandshake(base: string): Promise<Answer> {
  const res = await fetch(`${base}/socket.io/?EIO=4&transport=polling`);
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('json')
    ? (JSON.parse(text) as Record<string, unknown>)
    : undefined;
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: json };
}

/** An Engine.IO session that has joined no namespace yet: a pending, unauthenticated handshake. */
async function pendingSession(base: string): Promise<Manager> {
  const manager = new Manager(base, { transports: ['websocket'], reconnection: false, autoConnect: false });
  managers.push(manager);
  await new Promise<void>((resolve, reject) => manager.open((err) => (err ? reject(err) : resolve())));
  return manager;
}

describe('WebSocket handshakes per client address', () => {
  it('allows the burst, then answers 429 with Retry-After to Web PubSub upgrades and socket.io handshakes alike', async () => {
    running = await startApp(['--Http:WebSocketUpgradesPerIpPerSecond=1', '--Http:WebSocketUpgradeBurstPerIp=3']);
    const answers = await Promise.all(Array.from({ length: 8 }, () => wpsUpgrade(running!.url)));
    const admitted = answers.filter((a) => a.status === 401).length;
    // The burst, plus at most one token added if a second began meanwhile.
    expect(admitted).toBeGreaterThanOrEqual(3);
    expect(admitted).toBeLessThanOrEqual(4);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({ code: 'HUB_ERR_RATE_LIMITED', status: 429, policy: 'websocket-upgrades' });

    // The same address's budget covers socket.io: one more token at most, then 429.
    const socketIo = [await socketIoHandshake(running.url), await socketIoHandshake(running.url)];
    const limited = socketIo.find((a) => a.status === 429);
    expect(limited, JSON.stringify(socketIo)).toBeDefined();
    expect(Number(limited!.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(limited!.body).toMatchObject({ code: 'HUB_ERR_RATE_LIMITED', status: 429 });
  });
});

describe('pending handshakes', () => {
  it('caps sessions not yet authenticated at Http:MaxPendingUpgrades (503 with Retry-After); joining /telemetry or closing frees the slot', async () => {
    running = await startApp([
      '--Http:MaxPendingUpgrades=2',
      '--Http:WebSocketUpgradesPerIpPerSecond=1000',
      '--Http:WebSocketUpgradeBurstPerIp=1000',
    ]);
    const base = running.url;
    const first = await pendingSession(base);
    const second = await pendingSession(base);
    expect(running.app.upgrades.pending).toBe(2);

    const busy = await socketIoHandshake(base);
    expect(busy.status).toBe(503);
    expect(Number(busy.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(busy.body).toMatchObject({ code: 'HUB_ERR_HTTP_SERVER_BUSY', status: 503 });
    expect((await wpsUpgrade(base)).status).toBe(503);

    // Authenticated into the telemetry namespace: no longer pending.
    const socket = first.socket('/telemetry', { auth: { token: await userToken('t1') } });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
      socket.connect();
    });
    await eventually(() => running!.app.upgrades.pending === 1, 5000, 'slot freed by the namespace join');
    expect((await socketIoHandshake(base)).status).toBe(200);

    second.engine.close();
    await eventually(() => running!.app.upgrades.pending <= 1, 5000, 'slot freed by the close');
    expect((await wpsUpgrade(base)).status).toBe(401);
    expect(running.app.upgrades.pending).toBeLessThanOrEqual(1);
  });
});
