import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userToken } from '../../support/app-harness.js';
import { GATEWAY_MAIN, startChildHub, type ChildHub } from '../../support/child-hub.js';
import { ACCESS_KEY, startHubProcess, type HubProcess } from '../../support/hub-stamps.js';

// Issue 25 item 2: the gateway routes with the credential the hub acts on — the same parser, the
// same choice — so a request cannot be routed as one tenant and served as another.

/** A dashboard session cookie for `tenant`, from the hub's own session exchange. */
async function sessionCookie(hubUrl: string, tenant: string): Promise<string> {
  const res = await fetch(`${hubUrl}/auth/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await userToken(tenant)}` },
  });
  expect(res.status).toBe(204);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

describe('gateway: one credential per request (real hub and gateway processes)', () => {
  let a: HubProcess;
  let b: HubProcess;
  let gateway: ChildHub;

  beforeAll(async () => {
    a = await startHubProcess();
    b = await startHubProcess();
    gateway = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        `--Gateway:Stamps=pool-a=${a.url}; silo-b=${b.url}`,
        '--Gateway:Tenants=demo=pool-a, acme=silo-b',
        '--Gateway:DefaultStamp=pool-a',
        `--Hub:AccessKey=${ACCESS_KEY}`,
        '--Gateway:HealthIntervalSeconds=0.2',
      ],
      {},
      30_000,
      GATEWAY_MAIN,
    );
  }, 90_000);

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('a malformed Authorization header is 401 at the gateway, never a fall-back to ?access_token', async () => {
    const demo = await userToken('demo');
    // An EventSource request: the hub takes a query token there, so the gateway may route by one.
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer a b', 'Bearer']) {
      const res = await fetch(`${gateway.url}/v1/devices?access_token=${demo}`, {
        headers: { authorization, accept: 'text/event-stream' },
      });
      expect(res.status, authorization).toBe(401);
      expect(((await res.json()) as { code: string }).code, authorization).toBe('HUB_ERR_AUTH_INVALID_TOKEN');
    }
    // The query token alone, on an EventSource request, is accepted (the control case).
    expect(
      (await fetch(`${gateway.url}/v1/devices?access_token=${demo}`, { headers: { accept: 'text/event-stream' } }))
        .status,
    ).toBe(200);
  });

  it('a query token on an ordinary request is no credential: it neither routes nor authenticates', async () => {
    const res = await fetch(`${gateway.url}/v1/devices?access_token=${await userToken('acme')}`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { code: string }).code).toBe('HUB_ERR_AUTH_UNAUTHENTICATED');
  });

  it('a request carrying credentials of two tenants is refused', async () => {
    const cookie = await sessionCookie(b.url, 'acme');
    const res = await fetch(`${gateway.url}/v1/devices`, {
      headers: { authorization: `Bearer ${await userToken('demo')}`, cookie },
    });
    expect(res.status).toBe(401);
    // One tenant's credentials together pass.
    const same = await fetch(`${gateway.url}/v1/devices`, {
      headers: { authorization: `Bearer ${await userToken('acme')}`, cookie },
    });
    expect(same.status).toBe(200);
  });

  it('a socket.io connection whose auth.token and query token name two tenants is refused', async () => {
    const [demo, acme] = [await userToken('demo'), await userToken('acme')];
    const error = await new Promise<Error & { data?: { code?: string } }>((resolve, reject) => {
      const socket = io(`${gateway.url}/telemetry`, {
        auth: { token: demo },
        query: { access_token: acme },
        transports: ['websocket'],
        reconnection: false,
      });
      socket.once('connect', () => {
        socket.close();
        reject(new Error('connected as one tenant on the other tenant’s stamp'));
      });
      socket.once('connect_error', (err) => {
        socket.close();
        resolve(err as Error & { data?: { code?: string } });
      });
    });
    expect(error.data?.code).toBe('HUB_ERR_AUTH_INVALID_TOKEN');
  });
});
