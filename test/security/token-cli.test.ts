import { describe, expect, it } from 'vitest';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../src/security/dev-defaults.js';
import { createJwtVerifier } from '../../src/security/jwt-bearer.js';
import { runTokenCli } from '../../src/tools/token-cli.js';

const NOW = 1_760_000_000_000;

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runTokenCli(argv, env, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) }, NOW);
  return { code, stdout, stderr, token: stdout.trim() };
}

const devVerifier = createJwtVerifier({ secret: DEV_JWT_SECRET, issuer: DEV_JWT_ISSUER, audience: DEV_JWT_AUDIENCE, now: () => NOW });

describe('token CLI', () => {
  it('prints a development token the host accepts, with all roles', async () => {
    const { code, token, stderr } = await run(['--sub', 'alice', '--tenant', 'demo', '--role', 'admin', '--role', 'ops']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(await devVerifier.verify(token)).toEqual({
      ok: true,
      principal: { sub: 'alice', tenantId: 'demo', roles: ['admin', 'ops'], scheme: 'bearer', expiresAt: NOW + 3_600_000 },
    });
  });

  it('honours --expires', async () => {
    const { token } = await run(['--sub', 'alice', '--tenant', 'demo', '--expires', '60']);
    const result = await devVerifier.verify(token);
    expect(result.ok && result.principal.expiresAt).toBe(NOW + 60_000);
  });

  it('signs with --secret over Auth__Jwt__Secret over the development secret', async () => {
    const envSecret = 'environment-secret-that-is-long-enough-0001';
    const flagSecret = 'command-line-secret-that-is-long-enough-002';
    const verifierFor = (secret: string) =>
      createJwtVerifier({ secret, issuer: DEV_JWT_ISSUER, audience: DEV_JWT_AUDIENCE, now: () => NOW });
    const fromEnv = await run(['--sub', 'a', '--tenant', 'demo'], { Auth__Jwt__Secret: envSecret });
    const fromFlag = await run(['--sub', 'a', '--tenant', 'demo', '--secret', flagSecret], { Auth__Jwt__Secret: envSecret });
    expect((await verifierFor(envSecret).verify(fromEnv.token)).ok).toBe(true);
    expect((await verifierFor(flagSecret).verify(fromFlag.token)).ok).toBe(true);
    expect((await devVerifier.verify(fromEnv.token)).ok).toBe(false);
  });

  it.each([
    [[], /--sub is required/],
    [['--sub', 'alice'], /--tenant is required/],
    [['--sub', 'alice', '--tenant', 'bad:tenant'], /not a valid tenant id/],
    [['--sub', 'alice', '--tenant', 'demo', '--expires', '-5'], /--expires/],
    [['--sub', 'alice', '--tenant', 'demo', '--expires', 'soon'], /--expires/],
    [['--sub', 'alice', '--tenant', 'demo', '--colour', 'red'], /colour/],
    [['--sub', 'alice', '--tenant', 'demo', '--secret', 'short'], /32 bytes/],
  ])('exits 2 with usage on stderr for %j', async (argv, message) => {
    const { code, stdout, stderr } = await run(argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(/usage: token --sub S --tenant T/);
  });
});
