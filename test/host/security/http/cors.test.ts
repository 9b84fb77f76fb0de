// Spec "CORS preflight", over real HTTP. The browser's side is in browser-cors.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, securedApp } from './secured-app.js';
import { serve, type Served } from './serve.js';

const ALLOWED = 'http://app.example.test:3000';
const OTHER = 'http://evil.example.test';
let served: Served;
let handlerCalls = 0;

beforeAll(async () => {
  const web = securedApp({ allowedOrigins: [ALLOWED] });
  web.routes.put('/api/orders/{orderId}', ({ http }) => {
    handlerCalls++;
    return { orderId: http.routeValues['orderId'] };
  });
  web.routes.map(['PROPFIND'], '/api/orders/{orderId}', () => ({}));
  web.routes.get('/api/public', () => ({ ok: true }), { metadata: { allowAnonymous: true } });
  served = await serve(web);
});
afterAll(() => served.close());

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-allow-credentials',
];

function preflight(origin: string, method = 'PUT', headers = 'authorization, content-type') {
  return fetch(`${served.url}/api/orders/42`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
}

function corsHeadersOf(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CORS_HEADERS) {
    const value = res.headers.get(name);
    if (value !== null) out[name] = value;
  }
  return out;
}

describe('preflight', () => {
  it('an allowed origin gets 204 with exactly the allow headers, without credentials or reaching the handler', async () => {
    handlerCalls = 0;
    const res = await preflight(ALLOWED);
    expect(res.status).toBe(204);
    expect(corsHeadersOf(res)).toEqual({
      'access-control-allow-origin': ALLOWED,
      'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
      'access-control-allow-headers': 'authorization, content-type, traceparent, tracestate',
      'access-control-max-age': '600',
    });
    expect(res.headers.get('vary')).toBe('Origin');
    expect(await res.text()).toBe('');
    expect(handlerCalls).toBe(0);
  });

  it.each([
    ['a disallowed origin', OTHER, 'PUT', 'authorization, content-type'],
    ['a method the endpoint takes but the policy does not allow', ALLOWED, 'PROPFIND', 'authorization'],
    ['a disallowed request header', ALLOWED, 'PUT', 'authorization, x-secret'],
    ['the opaque origin null', 'null', 'PUT', 'authorization'],
  ])('%s gets 204 without any CORS header', async (_name, origin, method, headers) => {
    const res = await preflight(origin, method, headers);
    expect(res.status).toBe(204);
    expect(corsHeadersOf(res)).toEqual({});
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('a method no endpoint of the path takes has no policy to ask: refused like a plain OPTIONS, 405', async () => {
    const res = await preflight(ALLOWED, 'PROPPATCH', 'authorization');
    expect(res.status).toBe(405);
    expect(corsHeadersOf(res)).toEqual({});
  });

  it('OPTIONS without Access-Control-Request-Method is not a preflight: it goes down the pipeline', async () => {
    const res = await fetch(`${served.url}/api/orders/42`, { method: 'OPTIONS', headers: { origin: ALLOWED } });
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });
});

describe('actual requests', () => {
  it('an allowed origin gets Access-Control-Allow-Origin and Vary: Origin', async () => {
    handlerCalls = 0;
    const res = await fetch(`${served.url}/api/orders/42`, {
      method: 'PUT',
      headers: { origin: ALLOWED, 'content-type': 'application/json', ...(await bearer('alice', 'acme')) },
      body: '{}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('vary')).toBe('Origin');
    expect(await res.json()).toEqual({ orderId: '42' });
    expect(handlerCalls).toBe(1);
  });

  it('a disallowed origin gets Vary: Origin but no Access-Control-Allow-Origin', async () => {
    const res = await fetch(`${served.url}/api/public`, { headers: { origin: OTHER } });
    expect(res.status).toBe(200);
    expect(corsHeadersOf(res)).toEqual({});
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('error answers carry the CORS headers too, so the page can read the problem', async () => {
    const unauthenticated = await fetch(`${served.url}/api/orders/42`, { method: 'PUT', headers: { origin: ALLOWED } });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const missing = await fetch(`${served.url}/nowhere`, { headers: { origin: ALLOWED } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });
});
