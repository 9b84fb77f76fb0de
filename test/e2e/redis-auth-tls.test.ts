import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { waitFor } from '../adapters/eventhubs/wait-for.js';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { privateServer, requireCommand, type PrivateServer } from '../support/private-server.js';
import { testCertificates } from '../support/test-certificates.js';

const PASSWORD = 'pw-7f3a9c1e55d2';

interface Check {
  name: string;
  status: string;
}

async function redisCheck(hub: ChildHub): Promise<{ status: number; redis: Check | undefined }> {
  const res = await fetch(`${hub.url}/health/ready`);
  const body = (await res.json()) as { checks: Check[] };
  return { status: res.status, redis: body.checks.find((c) => c.name === 'redis') };
}

const hubArgs = (redisUrl: string) => [
  '--environment=Development',
  '--Http:Port=0',
  '--Ingestion:Mqtt:EmbeddedPort=0',
  '--Simulator:Devices=0',
  `--ConnectionStrings:redis=${redisUrl}`,
];

describe('issue 14: a Redis URL with a password, and rediss:// (TLS)', () => {
  const available = requireCommand('redis-server', 'a private Redis with a password and TLS');
  const servers: PrivateServer[] = [];
  const hubs: ChildHub[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'redis-tls-'));

  afterAll(async () => {
    for (const hub of hubs) await hub.stop();
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the password in the URL authenticates every connection (ready 200); a wrong one leaves the hub running, unready, and never logged', async ({
    skip,
  }) => {
    if (!available) return skip();
    const redis = await privateServer('redis-server', (port) => [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--requirepass',
      PASSWORD,
    ]);
    servers.push(redis);
    await redis.start();
    const good = await startChildHub(hubArgs(`redis://:${PASSWORD}@127.0.0.1:${redis.port}`), {}, 60_000);
    hubs.push(good);
    await waitFor('ready with redis Healthy', async () => (await redisCheck(good)).status === 200, 15_000);
    expect((await redisCheck(good)).redis?.status).toBe('Healthy');

    const wrong = await startChildHub(hubArgs(`redis://:not-${PASSWORD}@127.0.0.1:${redis.port}`), {}, 60_000);
    hubs.push(wrong);
    const answer = await redisCheck(wrong);
    expect(answer.status).toBe(503);
    expect(answer.redis?.status).toBe('Unhealthy');
    expect(wrong.child.exitCode).toBeNull();
    expect(wrong.output() + good.output()).not.toContain(PASSWORD);
  }, 120_000);

  it('rediss:// connects over TLS (a server trusted through the CA the process is given), with a password', async ({
    skip,
  }) => {
    if (!available || !requireCommand('openssl', 'to make a test certificate')) return skip();
    if (!testCertificates(dir)) throw new Error('openssl could not make the test certificates');
    const redis = await privateServer('redis-server', (port) => [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--requirepass',
      PASSWORD,
      '--tls-cert-file',
      join(dir, 'server.pem'),
      '--tls-key-file',
      join(dir, 'server.key'),
      '--tls-ca-cert-file',
      join(dir, 'ca.pem'),
      '--tls-auth-clients',
      'no',
    ]);
    servers.push(redis);
    await redis.start();
    const hub = await startChildHub(
      hubArgs(`rediss://:${PASSWORD}@127.0.0.1:${redis.port}`),
      { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
      60_000,
    );
    hubs.push(hub);
    await waitFor('ready with redis Healthy over TLS', async () => (await redisCheck(hub)).status === 200, 15_000);
    expect((await redisCheck(hub)).redis?.status).toBe('Healthy');
  }, 120_000);
});
