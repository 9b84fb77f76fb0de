import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Socket as NetSocket } from 'node:net';
import { promisify } from 'node:util';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, userToken } from '../../support/app-harness.js';
import { ChildHost, EPHEMERAL, MAIN, ROOT } from '../../host/support/child-host.js';

const TOKEN_CLI = `${ROOT}/dist/src/tools/token.js`;
/** Node runs this: it re-executes node under `ulimit -n LIMIT` (argv: LIMIT, entry, args…). */
const SHELL_ENTRY = join(mkdtempSync(join(tmpdir(), 'ulimit-')), 'ulimit.mjs');
writeFileSync(
  SHELL_ENTRY,
  `import { spawn } from 'node:child_process';
const [limit, ...rest] = process.argv.slice(2);
const quoted = rest.map((a) => "'" + a.replace(/'/g, "'\\''") + "'").join(' ');
const child = spawn('/bin/sh', ['-c', 'ulimit -n ' + limit + ' && exec "' + process.execPath + '" ' + quoted], { stdio: 'inherit' });
for (const s of ['SIGTERM', 'SIGINT']) process.on(s, () => child.kill(s));
child.on('exit', (code) => process.exit(code ?? 1));
`,
);
const KEY = 'process-test-device-key-that-is-long-enough-0001';
const PRODUCTION = [
  '--environment=Production',
  `--Hub:AccessKey=${'k'.repeat(40)}`,
  `--Auth:Jwt:Secret=${'s'.repeat(40)}`,
  '--Auth:Jwt:Issuer=i',
  '--Auth:Jwt:Audience=a',
  '--Ingestion:Mqtt:Embedded=true',
  `--Ingestion:Mqtt:DeviceKey=${KEY}`,
];

const hosts: ChildHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) {
    if (host.process.exitCode !== null) continue;
    // SIGTERM, not SIGKILL: the ulimit wrapper passes it on to the hub it started; killed outright,
    // the wrapper would leave that hub running.
    host.process.kill('SIGTERM');
    const stopped = await Promise.race([
      host.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, 15_000, false)),
    ]);
    if (!stopped) {
      host.process.kill('SIGKILL');
      await host.exited;
    }
  }
});

/** The broker URL the hub logs (`embedded mqtt broker listening`, JSON or readable). */
async function brokerUrl(host: ChildHost): Promise<string> {
  const m = await host.waitFor(/"?(?:url|mqtt)"?:\s*"(mqtt:\/\/[^"]+)"/, 20_000);
  return m[1]!.replace('localhost', '127.0.0.1');
}

describe('embedded broker as a real process', () => {
  it('runs out of file descriptors (EMFILE on accept) without crashing, and serves devices again after', async () => {
    // A low descriptor limit for the hub alone; the per-address cap is lifted so accept() hits it first.
    const args = [
      MAIN,
      ...EPHEMERAL,
      ...PRODUCTION,
      '--Ingestion:Mqtt:MaxConnectionsPerIp=5000',
      '--Ingestion:Mqtt:MaxConnections=5000',
    ];
    const host = new ChildHost(SHELL_ENTRY, ['200', ...args]);
    hosts.push(host);
    const url = await brokerUrl(host);
    const { port } = new URL(url);

    const sockets: NetSocket[] = [];
    let closedByHub = 0;
    for (let i = 0; i < 300; i++) {
      const socket = connect({ host: '127.0.0.1', port: Number(port) });
      socket.on('error', () => undefined);
      socket.once('close', () => closedByHub++);
      sockets.push(socket);
    }
    // Past the limit, accept() fails with EMFILE (libuv then accepts and closes what waits).
    await eventually(() => closedByHub > 0, 10_000, 'connections turned away for lack of descriptors');
    for (const s of sockets) s.destroy();

    expect(host.process.exitCode).toBeNull();
    // Descriptors come back as the hub sees the sockets close; mqtt.js retries until then.
    const token = await mintDeviceToken(['--device', 'after-emfile', '--tenant', 't1', '--device-key', KEY]);
    const device = await mqtt.connectAsync(url, {
      clientId: 'after-emfile',
      username: 'x',
      password: token,
      reconnectPeriod: 500,
      connectTimeout: 5000,
    });
    await device.publishAsync('tenants/t1/devices/after-emfile/telemetry', '{"temperature":1}', { qos: 1 });
    await device.endAsync();
    expect(host.process.exitCode).toBeNull();
  }, 60_000);

  it('README flow: `npm start`, then `npm run token -- --device my-device --tenant demo`, then publish with -P <token>', async () => {
    const host = new ChildHost(MAIN, ['--environment=Development', ...EPHEMERAL, '--Simulator:Devices=0']);
    hosts.push(host);
    const url = await brokerUrl(host);
    const httpUrl = (await host.listeningUrl()).replace('localhost', '127.0.0.1');

    // The token CLI in its default environment (Development), as a newcomer runs it.
    const token = await mintDeviceToken(['--device', 'my-device', '--tenant', 'demo']);
    const socket = await connectTelemetry(httpUrl, await userToken('demo'));
    try {
      const readings: unknown[] = [];
      socket.on('reading', (r) => readings.push(r));
      expect(await socket.emitWithAck('subscribe', { deviceId: 'my-device' })).toMatchObject({ ok: true });
      const device = await mqtt.connectAsync(url, { username: 'any', password: token, reconnectPeriod: 0 });
      await device.publishAsync('tenants/demo/devices/my-device/telemetry', '{"temperature": 21.5}', { qos: 1 });
      await device.endAsync();
      await eventually(() => readings.length === 1, 5000, 'the reading');
      expect(readings[0]).toMatchObject({ tenantId: 'demo', deviceId: 'my-device', data: { temperature: 21.5 } });
      // Without the token, the same publish never gets that far.
      await expect(mqtt.connectAsync(url, { reconnectPeriod: 0 }, false)).rejects.toMatchObject({ code: 5 });
    } finally {
      socket.close();
    }
  }, 60_000);
});

async function mintDeviceToken(args: string[]): Promise<string> {
  const env = { ...process.env };
  delete env.HUB_ENVIRONMENT;
  const { stdout } = await promisify(execFile)(process.execPath, [TOKEN_CLI, ...args], { cwd: ROOT, env });
  return stdout.trim();
}
