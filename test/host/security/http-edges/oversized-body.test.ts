import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../../support/app-harness.js';
import { rawExchange } from './raw-http.js';

// Issue 12 item 6: a body over Http:BodyLimitBytes gets its 413 problem+json delivered before the
// connection closes, even while the client is still sending (no reset that loses the answer).

let running: RunningApp;
beforeAll(async () => {
  running = await startApp();
});
afterAll(async () => {
  await running?.stop();
});

const FIVE_MB = 5 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

describe('a 5 MB POST to /api/negotiate over a raw socket', () => {
  it.each([
    ['declared with content-length', false],
    ['sent chunked, with no length up front', true],
  ])('reads a complete 413 problem+json before the connection closes (%s)', async (_name, chunked) => {
    const outcome = await rawExchange(running.url, (socket) => {
      socket.write(
        'POST /api/negotiate HTTP/1.1\r\nHost: hub.test\r\nContent-Type: application/json\r\n' +
          (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${FIVE_MB}\r\n\r\n`),
      );
      // Everything at once, as a client that does not wait for an answer before sending its body.
      for (let sent = 0; sent < FIVE_MB && !socket.destroyed; sent += CHUNK.length) {
        socket.write(
          chunked
            ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')])
            : CHUNK,
        );
      }
      if (chunked) socket.write('0\r\n\r\n');
    });

    expect(outcome.error?.code, 'the connection was reset').toBeUndefined();
    expect(
      outcome.response,
      `no complete response; got ${outcome.received.toString('latin1').slice(0, 200)}`,
    ).toBeDefined();
    const { status, headers, body } = outcome.response!;
    expect(status).toBe(413);
    expect(headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(headers['connection']).toBe('close');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(body)).toMatchObject({
      status: 413,
      code: 'HUB_ERR_HTTP_BODY_TOO_LARGE',
      instance: '/api/negotiate',
    });
  });

  it('still serves the next connection normally', async () => {
    const res = await fetch(`${running.url}/health/live`);
    expect(res.status).toBe(200);
  });
});
