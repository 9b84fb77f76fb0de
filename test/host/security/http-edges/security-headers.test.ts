import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIR } from '../../../../src/features/dashboard/dashboard-endpoints.js';
import { startApp, type RunningApp } from '../../../support/app-harness.js';
import { rawExchange } from './raw-http.js';

// Issue 12 item 6: security headers on every response; a CSP for the dashboard with no inline
// script; HSTS only when the request came over https.

let running: RunningApp;
beforeAll(async () => {
  // The test client is the "proxy" here: 127.0.0.1 is trusted to say the client used https.
  running = await startApp(['--Http:TrustedProxies=127.0.0.1,::1']);
});
afterAll(async () => {
  await running?.stop();
});

function expectBaseHeaders(res: Response): void {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
}

describe('security headers', () => {
  it.each([
    ['a health check', '/health/live', 'GET'],
    ['a 404 problem', '/no/such/path', 'GET'],
    ['a 401 from a function', '/api/negotiate', 'POST'],
    ['a 426 from the WebSocket endpoint without upgrade', '/client/hubs/telemetry', 'GET'],
    ['a socket.io polling handshake', '/socket.io/?EIO=4&transport=polling', 'GET'],
  ])('are on %s', async (_name, path, method) => {
    const res = await fetch(`${running.url}${path}`, { method });
    expectBaseHeaders(res);
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });

  it('are on a WebSocket upgrade the pipeline refuses (written raw to the socket)', async () => {
    const outcome = await rawExchange(running.url, (socket) => {
      socket.write(
        'GET /client/hubs/telemetry HTTP/1.1\r\nHost: hub.test\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
      );
    });
    expect(outcome.response?.status).toBe(401);
    expect(outcome.response?.headers['x-content-type-options']).toBe('nosniff');
    expect(outcome.response?.headers['x-frame-options']).toBe('DENY');
    expect(outcome.response?.headers['referrer-policy']).toBe('no-referrer');
  });

  it('give the dashboard a Content-Security-Policy with no inline script, and the built page has none', async () => {
    const res = await fetch(`${running.url}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');

    const html = readFileSync(join(DASHBOARD_DIR, 'index.html'), 'utf8');
    expect(await res.text()).toBe(html);
    for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? []) {
      expect(tag, 'inline script in the built index.html').toMatch(/^<script\b[^>]*\bsrc=/i);
      expect(tag).toMatch(/>\s*<\/script>$/);
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
  });

  it('add HSTS only when the request came over https (here: a trusted proxy says so)', async () => {
    const overHttps = await fetch(`${running.url}/health/live`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(overHttps.headers.get('strict-transport-security')).toBe('max-age=31536000');
    const overHttp = await fetch(`${running.url}/health/live`, { headers: { 'x-forwarded-proto': 'http' } });
    expect(overHttp.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('HSTS from an untrusted peer', () => {
  let untrusting: RunningApp;
  beforeAll(async () => {
    untrusting = await startApp(['--Http:TrustedProxies=10.0.0.0/8']);
  });
  afterAll(async () => {
    await untrusting?.stop();
  });

  it('is not sent when a peer that is not a trusted proxy claims https', async () => {
    const res = await fetch(`${untrusting.url}/health/live`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('HSTS with Http:PublicBaseUrl', () => {
  let behindTls: RunningApp;
  beforeAll(async () => {
    behindTls = await startApp(['--Http:PublicBaseUrl=https://telemetry.example.com']);
  });
  afterAll(async () => {
    await behindTls?.stop();
  });

  it('is sent on every response when the public URL is https', async () => {
    const res = await fetch(`${behindTls.url}/no/such/path`);
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000');
  });
});
