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
    const traversal = await fetch(`${hub.url}/assets/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
    expect(traversal.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('serves the source maps of the dashboard in Development', async () => {
    const map = await sourceMapPath(hub.url);
    expect((await fetch(`${hub.url}${map}`)).status).toBe(200);
  });
});

/** The map the dashboard's script names (`//# sourceMappingURL=`), as a path under /assets/. */
async function sourceMapPath(url: string): Promise<string> {
  const html = await (await fetch(`${url}/`)).text();
  const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
  const js = await (await fetch(`${url}${script}`)).text();
  const name = /\/\/# sourceMappingURL=(\S+)/.exec(js)![1]!;
  return `/assets/${name}`;
}

describe('the dashboard in Production', () => {
  let hub: RunningApp;
  beforeAll(async () => {
    hub = await startApp([
      '--environment=Production',
      `--Hub:AccessKey=${'k'.repeat(40)}`,
      `--Auth:Jwt:Secret=${'s'.repeat(40)}`,
      '--Auth:Jwt:Issuer=https://issuer.test',
      '--Auth:Jwt:Audience=telemetry-hub',
    ]);
  });
  afterAll(async () => {
    await hub?.stop();
  });

  it('serves no source maps: the page and its scripts, but every *.map is 404', async () => {
    const map = await sourceMapPath(hub.url);
    const res = await fetch(`${hub.url}${map}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });
});
