import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, userToken } from '../support/app-harness.js';
import { startChildHub, type ChildHub } from '../support/child-hub.js';
import { privateServer, requireCommand, type PrivateServer } from '../support/private-server.js';
import { testCertificates } from '../support/test-certificates.js';

// Issue 25 item 5: in external-broker mode the broker's ACL is what isolates tenants. The example
// in deploy/mosquitto/ runs here on a private Mosquitto (ephemeral port, stopped by PID) with its
// ACL file as shipped and its configuration with only the mounted paths and the port replaced.

const DEPLOY = fileURLToPath(new URL('../../deploy/mosquitto/', import.meta.url));
const PASSWORDS: Record<string, string> = {
  'telemetry-hub': 'hub-pw-1',
  'acme/boiler-1': 'boiler-pw-1',
  'globex/pump-7': 'pump-pw-7',
};

describe('deploy/mosquitto: a device of tenant A cannot publish into tenant B (real Mosquitto)', () => {
  const available =
    requireCommand('mosquitto', 'a private broker with the example ACL') &&
    requireCommand('openssl', 'the broker certificate');
  const dir = mkdtempSync(join(tmpdir(), 'mosquitto-acl-'));
  let broker: PrivateServer | undefined;
  const clients: MqttClient[] = [];
  const hubs: ChildHub[] = [];
  const sockets: { close(): void }[] = [];

  beforeAll(async () => {
    if (!available) return;
    chmodSync(dir, 0o755);
    if (!testCertificates(dir)) throw new Error('openssl could not make the test certificates');
    for (const [user, password] of Object.entries(PASSWORDS)) {
      const made = spawnSync(
        'mosquitto_passwd',
        ['-b', ...(user === 'telemetry-hub' ? ['-c'] : []), join(dir, 'passwd'), user, password],
        { stdio: 'ignore' },
      );
      if (made.status !== 0) throw new Error(`mosquitto_passwd failed for ${user}`);
    }
    writeFileSync(join(dir, 'acl'), readFileSync(join(DEPLOY, 'acl')));
    broker = await privateServer('mosquitto', (port) => {
      const conf = readFileSync(join(DEPLOY, 'mosquitto.conf'), 'utf8')
        .replaceAll('/mosquitto/config/', `${dir}/`)
        .replace(/^certfile \/mosquitto\/certs\/tls\.crt$/m, `certfile ${join(dir, 'server.pem')}`)
        .replace(/^keyfile \/mosquitto\/certs\/tls\.key$/m, `keyfile ${join(dir, 'server.key')}`)
        .replace(/^listener 8883$/m, `listener ${port} 127.0.0.1`);
      // Run as root (a test container), Mosquitto would switch to its own user and not read this directory.
      writeFileSync(join(dir, 'mosquitto.conf'), `${conf}${process.getuid?.() === 0 ? '\nuser root\n' : ''}`);
      return ['-c', join(dir, 'mosquitto.conf')];
    });
    await broker.start();
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const h of hubs) await h.stop();
    for (const c of clients) c.end(true);
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const connect = async (user: string | undefined, options: IClientOptions = {}): Promise<MqttClient> => {
    const client = await mqtt.connectAsync(`mqtts://127.0.0.1:${broker!.port}`, {
      ca: readFileSync(join(dir, 'ca.pem')),
      protocolVersion: 5,
      reconnectPeriod: 0,
      ...(user !== undefined && { username: user, password: options.password ?? PASSWORDS[user] }),
      ...options,
    });
    clients.push(client);
    return client;
  };

  it("delivers a device's reading on its own topic and refuses its publish to another tenant's (PUBACK: not authorized)", async ({
    skip,
  }) => {
    if (!available) return skip();
    const hub = await connect('telemetry-hub');
    const got: string[] = [];
    hub.on('message', (topic, payload) => got.push(`${topic} ${payload.toString()}`));
    await hub.subscribeAsync('tenants/+/devices/+/telemetry', { qos: 1 });

    const device = await connect('acme/boiler-1');
    // Into globex's device group, through its topic: refused by the ACL.
    await expect(
      device.publishAsync('tenants/globex/devices/pump-7/telemetry', '{"forged":1}', { qos: 1 }),
    ).rejects.toThrow(/not authori[sz]ed|135/i);
    // Its own tenant's other device is no better.
    await expect(
      device.publishAsync('tenants/acme/devices/boiler-2/telemetry', '{"forged":2}', { qos: 1 }),
    ).rejects.toThrow(/not authori[sz]ed|135/i);
    await device.publishAsync('tenants/acme/devices/boiler-1/telemetry', '{"own":3}', { qos: 1 });

    // The own reading arrives after the refused ones were handled: had they passed, they would be here first.
    await eventually(() => got.length > 0, 5000, 'the own reading at the hub');
    expect(got).toEqual(['tenants/acme/devices/boiler-1/telemetry {"own":3}']);
  });

  it("refuses anonymous clients and wrong passwords; a device reads no other device's readings; the hub may not publish", async ({
    skip,
  }) => {
    if (!available) return skip();
    await expect(connect(undefined)).rejects.toThrow(/not authori[sz]ed|bad user name or password|135|134/i);
    await expect(connect('acme/boiler-1', { password: 'not-the-password' })).rejects.toThrow(
      /not authori[sz]ed|bad user name or password|135|134/i,
    );

    const hub = await connect('telemetry-hub');
    const atHub: string[] = [];
    hub.on('message', (topic) => atHub.push(topic));
    await hub.subscribeAsync('tenants/+/devices/+/telemetry', { qos: 1 });
    // Mosquitto accepts the subscription and filters each message by the ACL's read grants.
    const snoop = await connect('acme/boiler-1');
    const snooped: string[] = [];
    snoop.on('message', (topic) => snooped.push(topic));
    await snoop.subscribeAsync('tenants/#', { qos: 1 });
    await expect(hub.publishAsync('tenants/acme/devices/boiler-1/telemetry', '{"x":1}', { qos: 1 })).rejects.toThrow(
      /not authori[sz]ed|135/i,
    );
    const pump = await connect('globex/pump-7');
    await pump.publishAsync('tenants/globex/devices/pump-7/telemetry', '{"n":1}', { qos: 1 });

    await eventually(() => atHub.length > 0, 5000, "globex's reading at the hub");
    expect(atHub).toEqual(['tenants/globex/devices/pump-7/telemetry']);
    // Delivered to the hub, so it had been offered to the snooping device too: it got nothing.
    await snoop.publishAsync('tenants/acme/devices/boiler-1/telemetry', '{"n":2}', { qos: 1 });
    await eventually(() => atHub.length === 2, 5000, 'a later reading at the hub');
    expect(snooped).toEqual([]);
  });

  it("a device cannot take over another device's session with its client id (the client id is the user name)", async ({
    skip,
  }) => {
    if (!available) return skip();
    const pump = await connect('globex/pump-7', { clientId: 'globex/pump-7' });
    let disconnected = false;
    const kicked = new Promise<never>((_resolve, reject) =>
      pump.once('close', () => {
        disconnected = true;
        reject(new Error('the pump was disconnected by a connection with its client id'));
      }),
    );
    kicked.catch(() => undefined); // also closed, later, by the clean-up
    const intruder = await connect('acme/boiler-1', { clientId: 'globex/pump-7' });
    await intruder.publishAsync('tenants/acme/devices/boiler-1/telemetry', '{"n":1}', { qos: 1 });
    // The pump's own publish still goes through on its connection.
    await Promise.race([pump.publishAsync('tenants/globex/devices/pump-7/telemetry', '{"n":2}', { qos: 1 }), kicked]);
    expect(disconnected).toBe(false);
  });

  it("the hub on its own user over TLS (the README's connection string) gets each tenant's readings; a forgery never reaches the other tenant", async ({
    skip,
  }) => {
    if (!available) return skip();
    const hub = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        '--Ingestion:Mqtt:EmbeddedPort=0',
        '--Simulator:Devices=0',
        `--ConnectionStrings:mqtt=mqtts://telemetry-hub:${PASSWORDS['telemetry-hub']}@localhost:${broker!.port}`,
      ],
      { NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
      60_000,
    );
    hubs.push(hub);
    await eventually(
      async () => (await fetch(`${hub.url}/health/ready`)).status === 200,
      30_000,
      'the hub subscribed to the broker',
    );
    const globex = await connectTelemetry(hub.url, await userToken('globex'));
    sockets.push(globex);
    const readings: { deviceId: string; data: unknown }[] = [];
    globex.on('reading', (r: { deviceId: string; data: unknown }) => readings.push(r));
    expect(await globex.emitWithAck('subscribe', { deviceId: 'pump-7' })).toMatchObject({ ok: true });

    const intruder = await connect('acme/boiler-1');
    await expect(
      intruder.publishAsync('tenants/globex/devices/pump-7/telemetry', '{"forged":true}', { qos: 1 }),
    ).rejects.toThrow(/not authori[sz]ed|135/i);
    const pump = await connect('globex/pump-7');
    await pump.publishAsync('tenants/globex/devices/pump-7/telemetry', '{"temperature":7}', { qos: 1 });

    await eventually(() => readings.length > 0, 10_000, "pump-7's reading at globex's subscriber");
    expect(readings).toEqual([expect.objectContaining({ deviceId: 'pump-7', data: { temperature: 7 } })]);
  });
});
