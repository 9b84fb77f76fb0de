// Issue 27 item 4: functions/ has a health of its own, and the Azure Web PubSub service it targets
// is its external-api dependency. Here the service is a real hub process, stopped for real.
import { createRequire } from 'node:module';
import type { HttpHandler, HttpResponseInit } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_KEY, startHubProcess, type HubProcess } from '../../support/hub-stamps.js';

const { HttpRequest, InvocationContext } = createRequire(import.meta.url)(
  '@azure/functions',
) as typeof import('@azure/functions');
const SETTINGS = ['WebPubSubConnectionString', 'WebPubSubHub'];
const saved = new Map(SETTINGS.map((k) => [k, process.env[k]]));

let hub: HubProcess;
let health: HttpHandler;

async function probe(): Promise<{
  status: number;
  body: { status: string; checks: { name: string; status: string; description?: string }[] };
}> {
  const res = (await health(
    new HttpRequest({ method: 'GET', url: 'http://localhost:7071/api/health' }),
    new InvocationContext({ functionName: 'health', invocationId: 'h-1' }),
  )) as HttpResponseInit;
  return { status: res.status!, body: res.jsonBody };
}

beforeAll(async () => {
  hub = await startHubProcess();
  process.env['WebPubSubConnectionString'] = `Endpoint=${hub.url};AccessKey=${ACCESS_KEY};Version=1.0;`;
  process.env['WebPubSubHub'] = 'telemetry';
  ({ health } = await import('../../../functions/src/functions/health.js'));
}, 60_000);

afterAll(async () => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await hub?.stop();
});

describe('functions/ GET /api/health: the Web PubSub service as external-api', () => {
  it('Healthy while the service answers; 200 Degraded, external-api Degraded, once it is gone', async () => {
    const up = await probe();
    expect(up.status).toBe(200);
    expect(up.body.status).toBe('Healthy');
    expect(up.body.checks.find((c) => c.name === 'external-api')?.status).toBe('Healthy');

    await hub.stop();
    const down = await probe();
    expect(down.status).toBe(200);
    expect(down.body.status).toBe('Degraded');
    expect(down.body.checks.find((c) => c.name === 'external-api')).toMatchObject({
      status: 'Degraded',
      description: expect.stringContaining('web-pubsub: unreachable'),
    });
  }, 30_000);

  it('without its settings: 503 Unhealthy, naming the setting', async () => {
    const before = process.env['WebPubSubConnectionString'];
    delete process.env['WebPubSubConnectionString'];
    try {
      const res = await probe();
      expect(res.status).toBe(503);
      expect(res.body.checks.find((c) => c.name === 'settings')).toMatchObject({
        status: 'Unhealthy',
        description: expect.stringContaining('WebPubSubConnectionString'),
      });
    } finally {
      process.env['WebPubSubConnectionString'] = before;
    }
  });
});
