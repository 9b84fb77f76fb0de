import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { DEV_DEVICE_KEY } from '../../src/host/security/dev-defaults.js';
import { createDeviceTokenVerifier } from '../../src/host/security/device-token.js';
import { runTokenCli } from '../../src/tools/token-cli.js';
import { jwtSettingsFromConfig } from '../../src/tools/token-config.js';

const NOW = 1_760_000_000_000;

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const root = mkdtempSync(join(tmpdir(), 'device-token-cli-'));
  const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t) };
  const code = await runTokenCli(argv, (args) => jwtSettingsFromConfig(args, env, root), io, NOW);
  return { code, stdout, stderr, token: stdout.trim() };
}

describe('npm run token -- --device D --tenant T', () => {
  it('prints a device token signed with the development device key: sub = device, tenant_id, aud = mqtt, no expiry', async () => {
    const { code, token, stderr } = await run(['--device', 'dev-1', '--tenant', 'demo']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(decodeJwt(token)).toEqual({ sub: 'dev-1', tenant_id: 'demo', aud: 'mqtt', iat: NOW / 1000 });
    expect(await createDeviceTokenVerifier(DEV_DEVICE_KEY, () => NOW)(token)).toEqual({
      tenantId: 'demo',
      deviceId: 'dev-1',
      expiresAt: undefined,
    });
  });

  it('signs with the configured Ingestion:Mqtt:DeviceKey, or --device-key; --expires sets exp', async () => {
    const key = 'configured-device-key-that-is-long-enough-0001';
    const configured = await run(['--device', 'dev-1', '--tenant', 'demo', '--expires', '60'], {
      Ingestion__Mqtt__DeviceKey: key,
    });
    expect(await createDeviceTokenVerifier(key, () => NOW)(configured.token)).toEqual({
      tenantId: 'demo',
      deviceId: 'dev-1',
      expiresAt: NOW + 60_000,
    });
    expect(await createDeviceTokenVerifier(DEV_DEVICE_KEY, () => NOW)(configured.token)).toBeNull();

    const flag = 'flag-device-key-that-is-long-enough-000000002';
    const explicit = await run(['--device', 'dev-1', '--tenant', 'demo', '--device-key', flag], {
      HUB_ENVIRONMENT: 'Production',
    });
    expect(explicit.code).toBe(0);
    expect(await createDeviceTokenVerifier(flag, () => NOW)(explicit.token)).not.toBeNull();
  });

  it('refuses bad ids, mixing with user-token flags, and a missing key', async () => {
    expect((await run(['--device', 'bad id', '--tenant', 'demo'])).code).toBe(64);
    expect((await run(['--device', 'd', '--tenant', 'demo', '--sub', 'u'])).code).toBe(64);
    expect((await run(['--device', 'd'])).code).toBe(64);
    // With an external broker configured, Development has no embedded broker and so no device key.
    const external = await run(['--device', 'd', '--tenant', 'demo', '--ConnectionStrings:mqtt=mqtt://127.0.0.1:1883']);
    expect(external.code).toBe(78);
    expect(external.stderr).toMatch(/Ingestion:Mqtt:DeviceKey is not configured/);
  });

  it('the user-token path is unchanged', async () => {
    const { code, token } = await run(['--sub', 'alice', '--tenant', 'demo']);
    expect(code).toBe(0);
    expect(decodeJwt(token)).toMatchObject({ sub: 'alice', tenant_id: 'demo', roles: [] });
  });
});
