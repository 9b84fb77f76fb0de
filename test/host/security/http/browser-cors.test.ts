// Spec "CORS preflight" 1–4 in a real headless Chromium: a page on one origin calls the API on another
// with Authorization and a JSON body (a non-simple request, so the browser preflights it).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchChromium, skipBrowserTests } from '../../../web-client/support/browser.js';
import { tokenFor, securedApp } from './secured-app.js';
import { serve, type Served } from './serve.js';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>cors page</title>
<script>
  window.callApi = async (url, token) => {
    try {
      const res = await fetch(url, {
        method: 'PUT',
        headers: { 'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: 'confirmed' }),
      });
      return { ok: true, status: res.status, body: await res.json() };
    } catch (err) {
      return { ok: false, error: String(err) };
    }
  };
</script></head><body>page</body></html>`;

interface Api {
  served: Served;
  handlerCalls: number;
  preflights: number;
}

describe.skipIf(skipBrowserTests)(`browser CORS (headless ${CHROMIUM})`, () => {
  let pageServer: Server;
  let pageOrigin: string;
  let browser: Browser;
  let page: Page;
  const apis: Api[] = [];

  async function startApi(allowedOrigins: string[]): Promise<Api> {
    const api: Api = { served: undefined as unknown as Served, handlerCalls: 0, preflights: 0 };
    const web = securedApp({
      allowedOrigins,
      first: async (ctx, next) => {
        if (ctx.method === 'OPTIONS') api.preflights++;
        await next(ctx);
      },
    });
    web.routes.put('/api/orders/{orderId}', ({ http }) => {
      api.handlerCalls++;
      return { orderId: http.routeValues['orderId'], tenant: (http.user as { tenantId: string }).tenantId };
    });
    api.served = await serve(web);
    apis.push(api);
    return api;
  }

  beforeAll(async () => {
    pageServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    );
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`${pageOrigin}/`);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all(apis.map((a) => a.served.close()));
    if (pageServer) await new Promise<void>((resolve) => pageServer.close(() => resolve()));
  });

  const call = async (api: Api) => {
    const token = await tokenFor('alice', 'acme');
    return page.evaluate(([url, t]) => (window as any).callApi(url, t), [
      `${api.served.url}/api/orders/42`,
      token,
    ] as const);
  };

  it('the page origin is allowed: preflight passes, the call succeeds and the page reads the answer', async () => {
    const api = await startApi([pageOrigin]);
    const result = await call(api);
    expect(result).toEqual({ ok: true, status: 200, body: { orderId: '42', tenant: 'acme' } });
    expect(api.preflights).toBe(1);
    expect(api.handlerCalls).toBe(1);
  });

  it('the page origin is not allowed: the browser stops after the preflight, the handler never runs', async () => {
    const api = await startApi(['http://somewhere-else.example']);
    const result = await call(api);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/TypeError/);
    expect(api.preflights).toBe(1);
    expect(api.handlerCalls).toBe(0);
  });
});
