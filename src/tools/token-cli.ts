import { parseArgs } from 'node:util';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../security/dev-defaults.js';
import { signUserToken } from '../security/jwt-bearer.js';
import { isValidId } from '../protocol/reading.js';

/** Where the CLI writes. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const TOKEN_USAGE = `usage: token --sub S --tenant T [--role R ...] [--expires SECONDS]
             [--secret X] [--issuer I] [--audience A]

Prints a user access token (HS256) with claims sub, tenant_id and roles.
  --sub       user id (required)
  --tenant    tenant id: letters, digits, _ . - (up to 64; required)
  --role      a role, repeatable (e.g. --role admin)
  --expires   lifetime in seconds (default 3600)
  --secret    signing secret (default env Auth__Jwt__Secret, else the development secret)
  --issuer    iss (default env Auth__Jwt__Issuer, else ${DEV_JWT_ISSUER})
  --audience  aud (default env Auth__Jwt__Audience, else ${DEV_JWT_AUDIENCE})
`;

/**
 * Runs the token CLI; returns the exit code (0 ok, 2 bad arguments). `env` supplies the
 * `Auth__Jwt__*` fallbacks so the caller decides what environment this sees.
 */
export async function runTokenCli(
  argv: string[],
  env: Record<string, string | undefined>,
  io: CliIo,
  now: number = Date.now(),
): Promise<number> {
  const fail = (message: string): number => {
    io.stderr(`token: ${message}\n${TOKEN_USAGE}`);
    return 2;
  };
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        sub: { type: 'string' },
        tenant: { type: 'string' },
        role: { type: 'string', multiple: true },
        expires: { type: 'string' },
        secret: { type: 'string' },
        issuer: { type: 'string' },
        audience: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    return fail((err as Error).message);
  }
  if (values.help) {
    io.stdout(TOKEN_USAGE);
    return 0;
  }
  if (!values.sub) return fail('--sub is required');
  if (!values.tenant) return fail('--tenant is required');
  if (!isValidId(values.tenant)) return fail(`--tenant "${values.tenant}" is not a valid tenant id`);
  const roles = values.role ?? [];
  if (roles.some((r) => r.length === 0)) return fail('--role must not be empty');
  const expires = values.expires ?? '3600';
  if (!/^[1-9]\d{0,9}$/.test(expires)) return fail(`--expires "${expires}" is not a positive whole number of seconds`);
  const secret = values.secret ?? env['Auth__Jwt__Secret'] ?? DEV_JWT_SECRET;
  if (Buffer.byteLength(secret) < 32) return fail('the secret must be at least 32 bytes');

  let token: string;
  try {
    token = await signUserToken({
      sub: values.sub,
      tenantId: values.tenant,
      roles,
      secret,
      issuer: values.issuer ?? env['Auth__Jwt__Issuer'] ?? DEV_JWT_ISSUER,
      audience: values.audience ?? env['Auth__Jwt__Audience'] ?? DEV_JWT_AUDIENCE,
      expiresInSeconds: Number(expires),
      now,
    });
  } catch (err) {
    return fail((err as Error).message);
  }
  io.stdout(`${token}\n`);
  return 0;
}
