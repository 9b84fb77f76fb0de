import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../../support/app-harness.js';
import { rawExchange } from './raw-http.js';

// Issue 12 item 6: headers over Http:MaxHeaderBytes → 431 as application/problem+json (not Fastify's plain JSON).

let running: RunningApp;
beforeAll(async () => {
  running = await startApp();
});
afterAll(async () => {
  await running?.stop();
});

describe('a request with 100 KB of headers', () => {
  it('gets a complete 431 problem+json, then the connection closes', async () => {
    const filler = Array.from({ length: 100 }, (_, i) => `X-Filler-${i}: ${'a'.repeat(1000)}\r\n`).join('');
    const outcome = await rawExchange(running.url, (socket) => {
      socket.write(`GET /health/live HTTP/1.1\r\nHost: hub.test\r\n${filler}\r\n`);
    });

    expect(outcome.error?.code, 'the connection was reset').toBeUndefined();
    expect(
      outcome.response,
      `no complete response; got ${outcome.received.toString('latin1').slice(0, 200)}`,
    ).toBeDefined();
    const { status, headers, body } = outcome.response!;
    expect(status).toBe(431);
    expect(headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(body)).toMatchObject({
      status: 431,
      code: 'HUB_ERR_HTTP_HEADERS_TOO_LARGE',
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
  });

  it('stays within the configured Http:MaxHeaderBytes (a 12 KB header passes the 16 KB default)', async () => {
    const res = await fetch(`${running.url}/health/live`, { headers: { 'x-big': 'b'.repeat(12 * 1024) } });
    expect(res.status).toBe(200);
  });
});
