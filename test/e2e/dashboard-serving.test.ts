import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../support/app-harness.js';

describe('the dashboard served by the host', () => {
  let hub: RunningApp;
  beforeAll(async () => {
    hub = await startApp();
  });
  afterAll(async () => {
    await hub?.stop();
  });

  it('serves index.html at / compressed, revalidated on each load, with an ETag that answers 304', async () => {
    const res = await fetch(`${hub.url}/`, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('content-encoding')).toBe('br');
    const html = await res.text();
    expect(html).toMatch(/<html/i);
    const etag = res.headers.get('etag')!;
    const again = await fetch(`${hub.url}/`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it('serves hashed assets for a year, immutable, and nothing outside the build', async () => {
    const html = await (await fetch(`${hub.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const res = await fetch(`${hub.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const escape = await fetch(`${hub.url}/assets/..%2F..%2Fpackage.json`);
    expect(escape.status).toBe(404);
    expect(escape.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
