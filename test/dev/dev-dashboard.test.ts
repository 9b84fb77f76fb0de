import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevDashboard } from '../../src/dev/dev-dashboard.js';
import { Orchestrator } from '../../src/dev/orchestrator.js';

/** One request with the Host header as given (Node's client sends it as set, unlike fetch). */
function get(
  url: string,
  host: string | undefined,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: { ...options.headers, ...(host !== undefined && { host }) },
        setHost: host !== undefined,
      },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('issue 25 item 5: the npm run dev page answers only a loopback Host (DNS rebinding)', () => {
  const dashboard = new DevDashboard(new Orchestrator([]));
  let url: string;
  let port: string;
  beforeAll(async () => {
    url = await dashboard.listen(0);
    port = new URL(url).port;
  });
  afterAll(() => dashboard.close());

  it.each(['127.0.0.1', 'localhost', '[::1]', 'LOCALHOST'])(
    'serves Host %s with and without the port',
    async (name) => {
      for (const host of [name, `${name}:${port}`]) {
        const res = await get(`${url}/api/resources`, host);
        expect(res.status, host).toBe(200);
        expect(JSON.parse(res.body)).toEqual([]);
      }
    },
  );

  it.each([
    ['a rebound name', 'attacker.example'],
    ['a rebound name with the port', 'attacker.example:1234'],
    ['a name ending like localhost', 'localhost.attacker.example'],
    ['a name starting like a loopback address', '127.0.0.1.nip.io'],
    ['the unspecified address', '0.0.0.0'],
    ['a bad port', '127.0.0.1:http'],
    ['a second Host inside', '127.0.0.1@attacker.example'],
  ])('refuses %s with a 400 problem and none of the data', async (_case, host) => {
    for (const [method, path, headers] of [
      ['GET', '/', {}],
      ['GET', '/api/resources', {}],
      ['GET', '/api/resources/hub-1/logs', { accept: 'text/event-stream' }],
      ['POST', '/api/resources/hub-1/restart', { 'x-dev-dashboard': '1' }],
    ] as const) {
      const res = await get(`${url}${path}`, host, { method, headers });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(res.type).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(res.body)).toMatchObject({ status: 400, code: 'HUB_ERR_HTTP_BAD_REQUEST', instance: path });
      expect(res.body).not.toContain('Telemetry Hub — development');
    }
  });

  it('refuses a request without a Host header', async () => {
    expect((await get(`${url}/api/resources`, undefined)).status).toBe(400);
  });
});
