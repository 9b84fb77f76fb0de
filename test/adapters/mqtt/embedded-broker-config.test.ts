import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/compose/load-app-config.js';
import { ConfigError } from '../../../src/host/config/load-config.js';
import { DEV_DEVICE_KEY } from '../../../src/host/security/dev-defaults.js';
import { startApp } from '../../support/app-harness.js';
import { ChildHost, EPHEMERAL, MAIN } from '../../host/support/child-host.js';

const PRODUCTION = [
  '--environment=Production',
  `--Hub:AccessKey=${'k'.repeat(40)}`,
  `--Auth:Jwt:Secret=${'s'.repeat(40)}`,
  '--Auth:Jwt:Issuer=https://issuer.test',
  '--Auth:Jwt:Audience=telemetry-hub',
];
const DEVICE_KEY = 'a-production-device-key-that-is-long-enough-01';

function load(args: string[]) {
  return loadConfig({ args, env: {}, contentRoot: mkdtempSync(join(tmpdir(), 'broker-config-')) });
}

function problems(args: string[]): string[] {
  try {
    load(args);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

describe('embedded broker configuration', () => {
  it('Development without a broker: embedded, on loopback, with the development device key and the documented caps', () => {
    const { mqtt } = load(['--environment=Development']);
    expect(mqtt).toMatchObject({
      embedded: true,
      embeddedHost: '127.0.0.1',
      embeddedPort: 1884,
      deviceKey: DEV_DEVICE_KEY,
      maxPacketBytes: 65_536,
      maxConnections: 10_000,
      maxConnectionsPerIp: 100,
    });
  });

  it('Development with a broker or Event Hubs configured: no embedded broker unless asked for', () => {
    expect(load(['--environment=Development', '--ConnectionStrings:mqtt=mqtt://127.0.0.1:1883']).mqtt.embedded).toBe(
      false,
    );
    expect(
      load([
        '--environment=Development',
        '--ConnectionStrings:eventhubs=Endpoint=sb://x/;EntityPath=y',
        '--Ingestion:EventHubs:Tenant=t1',
      ]).mqtt.embedded,
    ).toBe(false);
  });

  it('outside Development: off by default; when enabled, Ingestion:Mqtt:DeviceKey is required', () => {
    expect(load(PRODUCTION).mqtt.embedded).toBe(false);
    expect(problems([...PRODUCTION, '--Ingestion:Mqtt:Embedded=true'])).toEqual([
      'Ingestion:Mqtt:DeviceKey: is required in Production',
    ]);
    const enabled = load([...PRODUCTION, '--Ingestion:Mqtt:Embedded=true', `--Ingestion:Mqtt:DeviceKey=${DEVICE_KEY}`]);
    expect(enabled.mqtt).toMatchObject({ embedded: true, deviceKey: DEVICE_KEY });
    // A secret: never in the described configuration the hub logs.
    expect(enabled.describe()['Ingestion:Mqtt:DeviceKey']).toBe('[redacted]');
    expect(JSON.stringify(enabled.describe())).not.toContain(DEVICE_KEY);
    expect(problems([...PRODUCTION, '--Ingestion:Mqtt:Embedded=true', '--Ingestion:Mqtt:DeviceKey=short'])[0]).toMatch(
      /^Ingestion:Mqtt:DeviceKey: must be at least 32 characters/,
    );
  });

  it('the public development key is refused outside Development, and on a non-loopback address in Development', () => {
    expect(
      problems([...PRODUCTION, '--Ingestion:Mqtt:Embedded=true', `--Ingestion:Mqtt:DeviceKey=${DEV_DEVICE_KEY}`])[0],
    ).toMatch(/^Ingestion:Mqtt:DeviceKey: the public development key is refused outside Development/);
    expect(problems(['--environment=Development', '--Ingestion:Mqtt:EmbeddedHost=0.0.0.0'])[0]).toMatch(
      /^Ingestion:Mqtt:DeviceKey: the public development key is accepted only while Ingestion:Mqtt:EmbeddedHost is a loopback address/,
    );
    expect(
      load([
        '--environment=Development',
        '--Ingestion:Mqtt:EmbeddedHost=0.0.0.0',
        `--Ingestion:Mqtt:DeviceKey=${DEVICE_KEY}`,
      ]).mqtt.embeddedHost,
    ).toBe('0.0.0.0');
  });

  it('a Production hub with no broker configured starts no broker and says so', async () => {
    const hub = await startApp(PRODUCTION);
    try {
      expect(hub.app.telemetry.broker).toBeUndefined();
      expect(hub.logs.some((l) => l.msg === 'no ingestion source configured; devices cannot publish to this hub')).toBe(
        true,
      );
    } finally {
      await hub.stop();
    }
  });

  it('as a real process: Embedded=true in Production without a device key exits 78 naming the key', async () => {
    const hub = new ChildHost(MAIN, [...EPHEMERAL, ...PRODUCTION, '--Ingestion:Mqtt:Embedded=true'], {});
    expect((await hub.exited).code).toBe(78);
    expect(hub.output).toMatch(/Ingestion:Mqtt:DeviceKey: is required in Production/);
  });
});
