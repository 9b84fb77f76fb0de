// Spec "CORS preflight" with the real orders API: a page on another origin creates, edits and confirms
// an order in headless Chromium (a bearer token and a JSON body make every call non-simple).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { CHROMIUM, launchChromium, skipBrowserTests } from '../../web-client/support/browser.js';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>shop</title>
<script>
  window.send = async (method, url, token, body, extra = {}) => {
    try {
      const res = await fetch(url, {
        method,
        headers: { Authorization: 'Bearer ' + token, ...(body ? { 'Content-Type': 'application/json' } : {}), ...extra },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, etag: res.headers.get('etag'), body: await res.json() };
    } catch (err) {
      return { error: String(err) };
    }
  };
</script></head><body>shop</body></html>`;

describe.skipIf(skipBrowserTests)(`orders from another origin (headless ${CHROMIUM})`, () => {
  let pageServer: Server;
  let pageOrigin: string;
  let hub: RunningApp;
  let browser: Browser;
  let page: Page;
  let token: string;

  beforeAll(async () => {
    pageServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    );
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    hub = await startApp([`--Cors:AllowedOrigins=${pageOrigin}`]);
    token = await userToken('shop', { sub: 'buyer-1', roles: ['buyer'] });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await hub?.stop();
    if (pageServer) await new Promise<void>((resolve) => pageServer.close(() => resolve()));
  });

  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    page.evaluate(([m, url, t, b, h]) => (window as any).send(m, url, t, b, h), [
      method,
      `${hub.url}${path}`,
      token,
      body,
      headers,
    ] as const);

  it('creates, edits and confirms: each call preflighted, each answer readable by the page', async () => {
    const created = await send('PUT', '/api/orders/web-1', {
      customerId: 'cust-1',
      lines: [{ sku: 'sensor', quantity: 2, unitPrice: 1500 }],
    });
    expect(created).toMatchObject({ status: 200, body: { status: 'draft', total: 3000, version: 1 } });
    const edited = await send('PUT', '/api/orders/web-1', {
      customerId: 'cust-1',
      lines: [{ sku: 'sensor', quantity: 3, unitPrice: 1500 }],
    });
    expect(edited).toMatchObject({ status: 200, body: { total: 4500, version: 2 } });
    const confirmed = await send('POST', '/api/orders/web-1/confirm');
    expect(confirmed).toMatchObject({ status: 200, body: { status: 'confirmed', version: 3 } });
    const refused = await send('PUT', '/api/orders/web-1', { customerId: 'cust-1', lines: [] });
    expect(refused).toMatchObject({ status: 409, body: { code: 'HUB_ERR_ORDERS_CONFIRMED' } });
    // The browser asked first: a 204 preflight before the first PUT and before the first POST (then cached per Max-Age).
    // The page read every body, so each answer carried an Access-Control-Allow-Origin matching it. The
    // hub's request log shows the browser asked first: a 204 preflight before the first PUT and before
    // the POST; the later PUTs to the same URL used the cached answer (Access-Control-Max-Age).
    const seen = () =>
      hub.logs
        .filter((l) => l.msg === 'request' && ['OPTIONS', 'PUT', 'POST'].includes(String(l.method)))
        .map((l) => `${String(l.method)} ${String(l.status)}`);
    // The request line is logged once the answer is sent: the last one may still be on its way.
    await eventually(() => seen().length >= 6, 5000, 'six request log lines');
    expect(seen()).toEqual(['OPTIONS 204', 'PUT 200', 'PUT 200', 'OPTIONS 204', 'POST 200', 'PUT 409']);
  });

  it('a preflight answers 204 with Allow-Origin, -Methods, -Headers and -Max-Age; the actual answer carries Allow-Origin', async () => {
    const res = await fetch(`${hub.url}/api/orders/web-2`, {
      method: 'OPTIONS',
      headers: {
        origin: pageOrigin,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    expect(res.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(res.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
    const actual = await fetch(`${hub.url}/v1/orders/web-1`, {
      headers: { origin: pageOrigin, authorization: `Bearer ${token}` },
    });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBe(pageOrigin);
  });

  it("the page reads the profile's ETag and writes conditionally with If-Match (412 when stale)", async () => {
    const read = await send('GET', '/v1/profile');
    expect(read).toMatchObject({ status: 200, etag: '"0"' });
    const written = await send(
      'PUT',
      '/v1/profile',
      { email: 'buyer@example.com', phone: null },
      { 'If-Match': read.etag },
    );
    expect(written).toMatchObject({ status: 200, etag: '"1"' });
    const stale = await send(
      'PUT',
      '/v1/profile',
      { email: 'late@example.com', phone: null },
      { 'If-Match': read.etag },
    );
    expect(stale).toMatchObject({ status: 412, body: { code: 'HUB_ERR_PROFILE_PRECONDITION_FAILED' } });
  });

  it('a page on an origin not allowed never gets its PUT through', async () => {
    const other = await browser.newPage();
    const otherServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    );
    await new Promise<void>((resolve) => otherServer.listen(0, '127.0.0.1', resolve));
    try {
      await other.goto(`http://127.0.0.1:${(otherServer.address() as AddressInfo).port}/`);
      const result = await other.evaluate(
        ([url, t]) => (window as any).send('PUT', url, t, { customerId: 'x', lines: [] }),
        [`${hub.url}/api/orders/evil-1`, token] as const,
      );
      expect(result.error).toMatch(/Failed to fetch/);
      const check = await fetch(`${hub.url}/v1/orders/evil-1`, { headers: { authorization: `Bearer ${token}` } });
      expect(check.status).toBe(404);
    } finally {
      await other.close();
      await new Promise<void>((resolve) => otherServer.close(() => resolve()));
    }
  });
});
