import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../src/host/security/dev-defaults.js';
import { createJwtVerifier } from '../../src/host/security/jwt-bearer.js';
import { splitConfigArgs as splitArgs } from '../../src/host/command-line.js';
import { runTokenCli } from '../../src/tools/token-cli.js';
import { jwtSettingsFromConfig } from '../../src/tools/token-config.js';

const NOW = 1_760_000_000_000;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A content root holding the given appsettings files. */
function contentRoot(files: Record<string, unknown> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'token-cli-'));
  dirs.push(dir);
  for (const [name, json] of Object.entries(files)) writeFileSync(join(dir, name), JSON.stringify(json));
  return dir;
}

async function run(argv: string[], env: Record<string, string> = {}, root = contentRoot()) {
  let stdout = '';
  let stderr = '';
  const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t) };
  const code = await runTokenCli(argv, (args) => jwtSettingsFromConfig(args, env, root), io, NOW);
  return { code, stdout, stderr, token: stdout.trim() };
}

const verifierFor = (secret: string, issuer = DEV_JWT_ISSUER, audience = DEV_JWT_AUDIENCE) =>
  createJwtVerifier({ secret, issuer, audience, now: () => NOW });
const devVerifier = verifierFor(DEV_JWT_SECRET);

const SECRET_A = 'appsettings-secret-that-is-long-enough-0001';
const SECRET_B = 'development-file-secret-long-enough-000002';
const SECRET_C = 'environment-secret-that-is-long-enough-003';
const SECRET_D = 'command-line-secret-that-is-long-enough-04';

describe('token CLI', () => {
  it('prints a development token the host accepts, with all roles', async () => {
    const { code, token, stderr } = await run([
      '--sub',
      'alice',
      '--tenant',
      'demo',
      '--role',
      'admin',
      '--role',
      'ops',
    ]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(await devVerifier.verify(token)).toEqual({
      ok: true,
      principal: {
        sub: 'alice',
        tenantId: 'demo',
        roles: ['admin', 'ops'],
        scheme: 'bearer',
        expiresAt: NOW + 3_600_000,
      },
    });
  });

  it('honours --expires', async () => {
    const { token } = await run(['--sub', 'alice', '--tenant', 'demo', '--expires', '60']);
    const result = await devVerifier.verify(token);
    expect(result.ok && result.principal.expiresAt).toBe(NOW + 60_000);
  });

  it('resolves Auth:Jwt like the hub: appsettings < appsettings.Development < env < command line < --secret', async () => {
    const root = contentRoot({
      'appsettings.json': { Auth: { Jwt: { Secret: SECRET_A, Issuer: 'iss-file', Audience: 'aud-file' } } },
      'appsettings.Development.json': { Auth: { Jwt: { Secret: SECRET_B } } },
    });
    const base = ['--sub', 'a', '--tenant', 'demo'];
    const ok = async (argv: string[], env: Record<string, string>, secret: string) => {
      const { code, token, stderr } = await run(argv, env, root);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect((await verifierFor(secret, 'iss-file', 'aud-file').verify(token)).ok).toBe(true);
    };
    await ok(base, {}, SECRET_B);
    // Like the hub, Staging needs its whole configuration, Hub:AccessKey included.
    await ok(
      base,
      { HUB_ENVIRONMENT: 'Staging', Hub__AccessKey: 'hub-access-key-that-is-long-enough-000001' },
      SECRET_A,
    );
    await ok(base, { Auth__Jwt__Secret: SECRET_C }, SECRET_C);
    await ok([...base, `--Auth:Jwt:Secret=${SECRET_D}`], { Auth__Jwt__Secret: SECRET_C }, SECRET_D);
    await ok([...base, '--Auth:Jwt:Secret', SECRET_D], {}, SECRET_D);
    await ok([...base, '--secret', SECRET_D, `--Auth:Jwt:Secret=${SECRET_C}`], {}, SECRET_D);
  });

  it('--issuer / --audience override the configured ones', async () => {
    const { token } = await run(['--sub', 'a', '--tenant', 'demo', '--issuer', 'i2', '--audience', 'a2']);
    expect((await verifierFor(DEV_JWT_SECRET, 'i2', 'a2').verify(token)).ok).toBe(true);
  });

  it('outside Development the configuration must name the secret: exit 78 naming the key', async () => {
    const viaEnv = await run(['--sub', 'a', '--tenant', 'demo'], { HUB_ENVIRONMENT: 'Production' });
    expect(viaEnv.code).toBe(78);
    expect(viaEnv.stdout).toBe('');
    expect(viaEnv.stderr).toMatch(/Auth:Jwt:Secret: is required in Production/);
    const viaFlag = await run(['--sub', 'a', '--tenant', 'demo', '--environment', 'Production']);
    expect(viaFlag.code).toBe(78);
    expect(viaFlag.stderr).toMatch(/Auth:Jwt:Issuer: is required in Production/);
  });

  it('signs for a fully configured Production', async () => {
    const env = {
      HUB_ENVIRONMENT: 'Production',
      Auth__Jwt__Secret: SECRET_C,
      Auth__Jwt__Issuer: 'https://id.example',
      Auth__Jwt__Audience: 'hub',
      Hub__AccessKey: 'hub-access-key-that-is-long-enough-000001',
    };
    const { code, token } = await run(['--sub', 'a', '--tenant', 'demo'], env);
    expect(code).toBe(0);
    expect((await verifierFor(SECRET_C, 'https://id.example', 'hub').verify(token)).ok).toBe(true);
  });

  it('refuses with 78 when the hub trusts a JWKS issuer and no secret is configured', async () => {
    const env = {
      HUB_ENVIRONMENT: 'Production',
      Auth__Jwt__JwksUri: 'https://id.example/jwks',
      Auth__Jwt__Issuer: 'https://id.example',
      Auth__Jwt__Audience: 'hub',
      Hub__AccessKey: 'hub-access-key-that-is-long-enough-000001',
    };
    const { code, stderr } = await run(['--sub', 'a', '--tenant', 'demo'], env);
    expect(code).toBe(78);
    expect(stderr).toMatch(/Auth:Jwt:Secret is not configured/);
  });

  it.each([
    [[], /--sub is required/],
    [['--sub', 'alice'], /--tenant is required/],
    [['--sub', 'alice', '--tenant', 'bad:tenant'], /not a valid tenant id/],
    [['--sub', 'alice', '--tenant', 'demo', '--expires', '-5'], /--expires/],
    [['--sub', 'alice', '--tenant', 'demo', '--expires', 'soon'], /--expires/],
    [['--sub', 'alice', '--tenant', 'demo', '--colour', 'red'], /colour/],
    [['--sub', 'alice', '--tenant', 'demo', '--secret', 'short'], /32 bytes/],
  ])('exits 64 with usage on stderr for %j', async (argv, message) => {
    const { code, stdout, stderr } = await run(argv);
    expect(code).toBe(64);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/usage: token --sub S --tenant T/);
  });
});

describe('splitConfigArgs', () => {
  it('hands --environment and --Section:Key arguments to the configuration, the rest to the tool', () => {
    expect(
      splitArgs([
        '--sub',
        'a',
        '--environment',
        'Staging',
        '--Auth:Jwt:Secret=x',
        '--tenant',
        't',
        '--Hub:Name',
        'h',
        '--role',
        'r',
      ]),
    ).toEqual({
      configArgs: ['--environment', 'Staging', '--Auth:Jwt:Secret=x', '--Hub:Name', 'h'],
      toolArgs: ['--sub', 'a', '--tenant', 't', '--role', 'r'],
    });
  });
});
