import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../../../support/app-harness.js';

// Issue 12 item 5: behind a TLS proxy (Http:PublicBaseUrl, or X-Forwarded-Proto/Host trusted only
// from Http:TrustedProxies) cookies are Secure and negotiate returns wss:// URLs on the public host.

const FORWARDED = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'telemetry.example.com' };

async function sessionCookie(url: string, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${url}/auth/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await userToken('demo')}`, ...headers },
  });
  expect(res.status).toBe(204);
  return res.headers.get('set-cookie') ?? '';
}

async function negotiatedUrl(url: string, headers: Record<string, string>): Promise<URL> {
  const res = await fetch(`${url}/api/negotiate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await userToken('demo')}`, ...headers },
  });
  expect(res.status).toBe(200);
  return new URL(((await res.json()) as { url: string }).url);
}

describe('X-Forwarded-Proto/Host from a trusted proxy (Http:TrustedProxies)', () => {
  let running: RunningApp;
  beforeAll(async () => {
    // The test client connects from loopback: it is the trusted proxy.
    running = await startApp(['--Http:TrustedProxies=10.0.0.0/8, 127.0.0.1, ::1']);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('makes the session cookie Secure', async () => {
    expect(await sessionCookie(running.url, FORWARDED)).toMatch(/^hub_session=.*;\s*Secure/);
  });

  it('makes negotiate answer wss:// on the public host', async () => {
    const url = await negotiatedUrl(running.url, FORWARDED);
    expect(url.protocol).toBe('wss:');
    expect(url.host).toBe('telemetry.example.com');
    expect(url.pathname).toBe('/client/hubs/telemetry');
  });

  it('takes the value the nearest proxy added when a header lists several', async () => {
    const url = await negotiatedUrl(running.url, {
      'x-forwarded-proto': 'http, https',
      'x-forwarded-host': 'evil.example, telemetry.example.com',
    });
    expect(url.protocol).toBe('wss:');
    expect(url.host).toBe('telemetry.example.com');
  });

  it('ignores a forwarded host that is not a host name', async () => {
    const url = await negotiatedUrl(running.url, {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'evil.example/path?',
    });
    expect(url.host).toBe(new URL(running.url).host);
  });

  it('leaves plain http alone without forwarded headers', async () => {
    expect(await sessionCookie(running.url, {})).not.toMatch(/Secure/);
    expect((await negotiatedUrl(running.url, {})).protocol).toBe('ws:');
  });
});

describe('X-Forwarded-Proto/Host from a peer that is not a trusted proxy', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(['--Http:TrustedProxies=10.0.0.0/8']);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('are ignored: no Secure cookie, ws:// on the Host the client sent', async () => {
    expect(await sessionCookie(running.url, FORWARDED)).not.toMatch(/Secure/);
    const url = await negotiatedUrl(running.url, FORWARDED);
    expect(url.protocol).toBe('ws:');
    expect(url.host).toBe(new URL(running.url).host);
  });
});

describe('Http:PublicBaseUrl', () => {
  let running: RunningApp;
  beforeAll(async () => {
    running = await startApp(['--Http:PublicBaseUrl=https://hub.example.org/']);
  });
  afterAll(async () => {
    await running?.stop();
  });

  it('decides the scheme and host whatever the request says', async () => {
    expect(await sessionCookie(running.url, {})).toMatch(/;\s*Secure/);
    const url = await negotiatedUrl(running.url, { 'x-forwarded-proto': 'http', 'x-forwarded-host': 'other.example' });
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe('wss://hub.example.org/client/hubs/telemetry');
  });

  it('still lets the negotiated token in when the proxy hands the upgrade over with an internal Host', async () => {
    const url = await negotiatedUrl(running.url, {});
    const direct = `${running.url.replace('http:', 'ws:')}/client/hubs/telemetry${url.search}`;
    const ws = new WebSocket(direct, 'json.webpubsub.azure.v1');
    const first = await new Promise<string>((resolve, reject) => {
      ws.once('message', (data: Buffer) => resolve(data.toString()));
      ws.once('unexpected-response', (_req, res) => reject(new Error(`websocket refused: ${res.statusCode}`)));
      ws.once('error', reject);
    });
    ws.close();
    expect(JSON.parse(first)).toMatchObject({ type: 'system', event: 'connected' });
  });
});
