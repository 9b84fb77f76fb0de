import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeGateway, type Gateway } from '../../../src/compose/compose-gateway.js';
import { loadGatewayConfig } from '../../../src/compose/gateway-config.js';
import { ConfigError } from '../../../src/host/config/load-config.js';
import { createRootLogger } from '../../../src/host/logging.js';
import { userToken } from '../../support/app-harness.js';

/** A stand-in instance: ready, and then whatever `handle` does with every other request. */
async function instance(
  handle: (path: string, res: import('node:http').ServerResponse) => void,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) =>
    req.url === '/health/ready' ? res.end('{}') : handle(req.url ?? '/', res),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const quiet = new Writable({ write: (_c, _e, done) => done() });

function config(args: string[]) {
  return loadGatewayConfig({
    args: ['--Http:Port=0', ...args],
    env: { HUB_ENVIRONMENT: 'Development' },
    contentRoot: mkdtempSync(join(tmpdir(), 'gw-')),
  });
}

describe('gateway: upstream failures become problems', () => {
  let silent: Awaited<ReturnType<typeof instance>>;
  let vanishing: Awaited<ReturnType<typeof instance>>;
  let gateway: Gateway;
  let base: string;

  beforeAll(async () => {
    silent = await instance(() => undefined);
    vanishing = await instance((_path, res) => res.socket?.destroy());
    const c = config([
      `--Gateway:Stamps=slow=${silent.url}; gone=${vanishing.url}`,
      '--Gateway:Tenants=t-slow=slow, t-gone=gone',
      '--Gateway:UpstreamTimeoutSeconds=0.3',
      '--Gateway:HealthIntervalSeconds=60',
    ]);
    gateway = composeGateway(c, createRootLogger(c, quiet));
    await gateway.host.start();
    base = gateway.server.url!.replace('localhost', '127.0.0.1');
  });

  afterAll(async () => {
    await gateway.host.stop();
    silent.server.closeAllConnections();
    await new Promise((r) => silent.server.close(r));
    await new Promise((r) => vanishing.server.close(r));
  });

  const get = async (tenant: string) =>
    fetch(`${base}/v1/devices`, { headers: { authorization: `Bearer ${await userToken(tenant)}` } });

  it('an instance silent past Gateway:UpstreamTimeoutSeconds: 504 problem', async () => {
    const res = await get('t-slow');
    expect(res.status).toBe(504);
    expect(((await res.json()) as { code: string }).code).toBe('HUB_ERR_GATEWAY_UPSTREAM_TIMEOUT');
  });

  it('an instance that breaks off the exchange: 502 problem', async () => {
    const res = await get('t-gone');
    expect(res.status).toBe(502);
    expect(((await res.json()) as { code: string }).code).toBe('HUB_ERR_GATEWAY_UPSTREAM_FAILED');
  });

  it('an instance that refuses connections leaves the rotation at once: 502, then 503 until a poll finds it ready', async () => {
    await new Promise((r) => vanishing.server.close(r));
    expect((await get('t-gone')).status).toBe(502);
    const next = await get('t-gone');
    expect(next.status).toBe(503);
    expect(next.headers.get('retry-after')).toBe('60');
  });

  it('the gateway answers its own health', async () => {
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
  });
});

describe('gateway configuration', () => {
  it('refuses a catalogue or default stamp that names an unknown stamp, naming the key', () => {
    expect(() => config(['--Gateway:Stamps=a=http://127.0.0.1:1', '--Gateway:Tenants=t=b'])).toThrow(ConfigError);
    expect(() => config(['--Gateway:Stamps=a=http://127.0.0.1:1', '--Gateway:Tenants=t=b'])).toThrow(
      /Gateway:Tenants: tenant 't' names stamp 'b'/,
    );
    expect(() => config(['--Gateway:Stamps=a=http://127.0.0.1:1', '--Gateway:DefaultStamp=z'])).toThrow(
      /Gateway:DefaultStamp/,
    );
    expect(() => config([])).toThrow(/Gateway:Stamps/);
  });
});
