import { createRequire } from 'node:module';
import type { HttpHandler, HttpResponseInit } from '@azure/functions';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../../src/host/security/dev-defaults.js';
import { eventually, userToken } from '../../support/app-harness.js';
import {
  connectClient,
  negotiate as hostNegotiate,
  startServerlessApp,
  subscribe as hostSubscribe,
  type ServerlessApp,
  type Subscriber,
} from './serverless-harness.js';

// The package is CommonJS whose classes Node's ESM named-export detection misses.
const { HttpRequest, InvocationContext } = createRequire(import.meta.url)(
  '@azure/functions',
) as typeof import('@azure/functions');

const SETTINGS = [
  'WebPubSubConnectionString',
  'WebPubSubHub',
  'Auth__Jwt__Secret',
  'Auth__Jwt__Issuer',
  'Auth__Jwt__Audience',
];
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

let hub: ServerlessApp;
let negotiate: HttpHandler;
let subscribe: HttpHandler;
const saved = new Map(SETTINGS.map((k) => [k, process.env[k]]));
const clients: Subscriber[] = [];

/** App settings as on Azure, pointing the functions at this host as if it were Azure Web PubSub. */
function configure(accessKey: string): void {
  process.env['WebPubSubConnectionString'] = `Endpoint=${hub.url};AccessKey=${accessKey};Version=1.0;`;
  process.env['WebPubSubHub'] = 'telemetry';
  process.env['Auth__Jwt__Secret'] = DEV_JWT_SECRET;
  process.env['Auth__Jwt__Issuer'] = DEV_JWT_ISSUER;
  process.env['Auth__Jwt__Audience'] = DEV_JWT_AUDIENCE;
}

beforeAll(async () => {
  hub = await startServerlessApp();
  configure(hub.accessKey);
  ({ negotiate } = await import('../../../functions/src/functions/negotiate.js'));
  ({ subscribe } = await import('../../../functions/src/functions/subscribe.js'));
});
afterEach(() => {
  for (const c of clients.splice(0)) c.client.stop();
  configure(hub.accessKey);
});
afterAll(async () => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await hub?.stop();
});

function call(
  handler: HttpHandler,
  name: string,
  token: string | undefined,
  body?: unknown,
): Promise<HttpResponseInit> {
  const request = new HttpRequest({
    method: 'POST',
    url: `http://localhost:7071/api/${name}`,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: { string: typeof body === 'string' ? body : JSON.stringify(body) } }),
  });
  const context = new InvocationContext({
    functionName: name,
    invocationId: 'inv-1',
    traceContext: { traceParent: `00-${TRACE_ID}-00f067aa0ba902b7-01` },
  });
  return handler(request, context) as Promise<HttpResponseInit>;
}

function headerOf(res: HttpResponseInit, name: string): string | undefined {
  return (res.headers as Record<string, string> | undefined)?.[name];
}

function json(res: HttpResponseInit): Record<string, unknown> {
  return JSON.parse(res.body as string) as Record<string, unknown>;
}

describe('Azure Functions adapters (functions/src/functions/*.ts) against the host as the Web PubSub service', () => {
  it('negotiate: the same URL shape and claims as the host, for the same user', async () => {
    const token = await userToken('t1', { sub: 'alice' });
    const fn = await call(negotiate, 'negotiate', token);
    const host = await hostNegotiate(hub.url, token);
    expect(fn.status).toBe(200);
    expect(host.status).toBe(200);
    const fnUrl = new URL(json(fn)['url'] as string);
    const hostUrl = new URL(((await host.json()) as { url: string }).url);
    expect(fnUrl.origin + fnUrl.pathname).toBe(hostUrl.origin + hostUrl.pathname);
    const pick = (u: URL) => {
      const { sub, tenant_id, aud, role } = decodeJwt(u.searchParams.get('access_token')!);
      return { sub, tenant_id, aud, role };
    };
    expect(pick(fnUrl)).toEqual(pick(hostUrl));
    expect(pick(fnUrl)).toMatchObject({ sub: 'alice', tenant_id: 't1' });
  });

  it('negotiate → connect → subscribe through the function → readings arrive', async () => {
    const token = await userToken('t1');
    const url = json(await call(negotiate, 'negotiate', token))['url'] as string;
    const { WebPubSubClient } = await import('@azure/web-pubsub-client');
    const client = new WebPubSubClient(url);
    const connected = new Promise<string>((resolve) => client.on('connected', (e) => resolve(e.connectionId)));
    const readings: unknown[] = [];
    client.on('group-message', (e) => readings.push(e.message.data));
    await client.start();
    try {
      const connectionId = await connected;
      hub.managementTenants.length = 0;
      const res = await call(subscribe, 'subscribe', token, { connectionId, deviceId: 'fn-dev' });
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      // The deployed function calls the management API, carrying the caller's tenant on each call.
      expect(hub.managementTenants.length).toBeGreaterThanOrEqual(2);
      expect(new Set(hub.managementTenants)).toEqual(new Set(['t1']));
      await hub.publish('t1', 'fn-dev', { temperature: 7 });
      await eventually(() => readings.length === 1, 5000, 'reading');
      expect(readings[0]).toMatchObject({ tenantId: 't1', deviceId: 'fn-dev', data: { temperature: 7 } });
    } finally {
      client.stop();
    }
  });

  it('subscribe answers what the host answers: 401, 400, 403, 404 as the same problems', async () => {
    const c = await connectClient(hub.url, await userToken('t2'), false);
    clients.push(c);
    const t1 = await userToken('t1');
    const cases: [string | undefined, unknown, number, string][] = [
      [undefined, { connectionId: c.connectionId, deviceId: 'd' }, 401, 'HUB_ERR_AUTH_UNAUTHENTICATED'],
      [`${t1}x`, { connectionId: c.connectionId, deviceId: 'd' }, 401, 'HUB_ERR_AUTH_INVALID_TOKEN'],
      [t1, '{', 400, 'HUB_ERR_FUNC_BAD_BODY'],
      [t1, { connectionId: c.connectionId, deviceId: '../d' }, 400, 'HUB_ERR_FUNC_BAD_BODY'],
      [t1, { connectionId: c.connectionId, deviceId: 'd', tenantId: 't2' }, 403, 'HUB_ERR_AUTH_FORBIDDEN'],
      [t1, { connectionId: 'no-such-connection', deviceId: 'd' }, 404, 'HUB_ERR_FUNC_UNKNOWN_CONNECTION'],
    ];
    for (const [token, body, status, code] of cases) {
      const fn = await call(subscribe, 'subscribe', token, body);
      const host = await hostSubscribe(hub.url, token, body);
      const hostProblem = (await host.json()) as Record<string, unknown>;
      expect([fn.status, json(fn)['code']], JSON.stringify(body)).toEqual([status, code]);
      expect([host.status, hostProblem['code']]).toEqual([status, code]);
      expect(json(fn)['detail']).toBe(hostProblem['detail']);
      expect(headerOf(fn, 'content-type')).toBe(host.headers.get('content-type'));
      expect(headerOf(fn, 'www-authenticate') ?? null).toBe(host.headers.get('www-authenticate'));
      expect(json(fn)).toMatchObject({ instance: '/api/subscribe', traceId: TRACE_ID });
    }
    expect(hub.running.app.telemetry.hub.groupsOf(c.connectionId)).toEqual(['owner:t2:user-t2']);
  });

  it('a management API failure is 502 FUNC_UPSTREAM without the internal error', async () => {
    configure(`${hub.accessKey}-wrong`);
    const res = await call(subscribe, 'subscribe', await userToken('t1'), { connectionId: 'abc', deviceId: 'd' });
    expect(res.status).toBe(502);
    const body = json(res);
    expect(body).toMatchObject({ code: 'HUB_ERR_FUNC_UPSTREAM', status: 502 });
    expect(Object.keys(body).sort()).toEqual(['code', 'detail', 'instance', 'status', 'title', 'traceId', 'type']);
    expect(res.body as string).not.toMatch(/401|stack|Bearer|AccessKey/i);
  });

  it('a missing setting is 500 CONFIG_INVALID, naming nothing internal', async () => {
    delete process.env['WebPubSubConnectionString'];
    const res = await call(negotiate, 'negotiate', await userToken('t1'));
    expect(res.status).toBe(500);
    expect(json(res)).toMatchObject({
      code: 'HUB_ERR_CONFIG_INVALID',
      detail: 'The function app is not configured; see its log.',
    });
  });
});
