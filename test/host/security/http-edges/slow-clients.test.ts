import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../../support/app-harness.js';
import { parseResponse } from './raw-http.js';

// Issue 12 item 6: server timeouts and Http:MaxConnections are set; a slowloris client is cut off.

let running: RunningApp;
beforeAll(async () => {
  running = await startApp([
    '--Http:HeadersTimeoutSeconds=1',
    '--Http:RequestTimeoutSeconds=5',
    '--Http:MaxConnections=3',
  ]);
});
afterAll(async () => {
  await running?.stop();
});

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

describe('slow clients', () => {
  it('cuts a client that sends its headers one byte per second (slowloris) within about Http:HeadersTimeoutSeconds', async () => {
    const socket = await open(running.url);
    socket.on('error', () => {});
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    const started = Date.now();
    socket.write('GET /health/live HTTP/1.1\r\nHost: hub.test\r\n');
    // Never finishes: one more byte of an endless header every second.
    const drip = setInterval(() => socket.writable && socket.write('X'), 1000);
    const deadline = new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 8000));
    const outcome = await Promise.race([closed(socket).then(() => 'closed' as const), deadline]);
    clearInterval(drip);
    socket.destroy();

    expect(outcome).toBe('closed');
    // 1 s timeout, checked every 0.5 s: cut well before a default-configured server would (60 s).
    expect(Date.now() - started).toBeLessThan(4000);
    const response = parseResponse(Buffer.concat(received));
    expect(response?.status).toBe(408);
    expect(response?.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(response!.body)).toMatchObject({ code: 'HUB_ERR_HTTP_REQUEST_TIMEOUT' });
  });

  it('cuts a client that connects and sends nothing, within about Http:HeadersTimeoutSeconds', async () => {
    const socket = await open(running.url);
    socket.on('error', () => {});
    const started = Date.now();
    const outcome = await Promise.race([
      closed(socket).then(() => 'closed' as const),
      new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 8000)),
    ]);
    socket.destroy();
    expect(outcome).toBe('closed');
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('closes connections beyond Http:MaxConnections at once, and serves again when one closes', async () => {
    const held = await Promise.all([open(running.url), open(running.url), open(running.url)]);
    for (const s of held) s.on('error', () => {});
    const extra = await open(running.url);
    extra.on('error', () => {});
    // Well before the 1 s idle cut: the server refused it for the limit, not for silence.
    const outcome = await Promise.race([
      closed(extra).then(() => 'closed' as const),
      new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), 500)),
    ]);
    expect(outcome).toBe('closed');
    expect(held.every((s) => !s.destroyed)).toBe(true);

    for (const s of held) s.destroy();
    await Promise.all(held.map(closed));
    const deadline = Date.now() + 5000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = await fetch(`${running.url}/health/live`, { signal: AbortSignal.timeout(1000) }).then(
        (r) => r.status,
        () => 0,
      );
    }
    expect(status).toBe(200);
  });
});
