import { ExitCode, readCommandLine, usageFailure } from '../host/command-line.js';
import { signDeviceToken } from '../host/security/device-token.js';
import { signUserToken } from '../host/security/jwt-bearer.js';
import { isValidId } from '../host/ids.js';
import type { JwtSigningSettings } from './token-config.js';
import { systemClock } from '../host/clock.js';

/** Where the CLI writes. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Resolves the signing settings from the configuration arguments (`--environment`, `--Section:Key=value`); may throw. */
export type ResolveJwtSettings = (configArgs: string[]) => JwtSigningSettings;

/** Exit codes: every command's (a bad command line 64, a configuration problem 78). */
export const TokenExit = { ok: ExitCode.ok, usage: ExitCode.usage, config: ExitCode.config } as const;

export const TOKEN_USAGE = `usage: token --sub S --tenant T [--role R ...] [--expires SECONDS]
             [--secret X] [--issuer I] [--audience A] [--environment E] [--Section:Key=value ...]
       token --device D --tenant T [--expires SECONDS] [--device-key K] [--environment E] [--Section:Key=value ...]
       token --help | --version

Prints a user access token (HS256) with claims sub, tenant_id and roles, signed with the
configured Auth:Jwt:Secret / Issuer / Audience, resolved like the hub's configuration
(appsettings*.json, Auth__Jwt__* environment variables, --Auth:Jwt:*=value arguments).
The environment is Development (development secret) unless HUB_ENVIRONMENT or --environment says otherwise.
  --sub       user id (required)
  --tenant    tenant id: letters, digits, _ . - (up to 64; required)
  --role      a role, repeatable (e.g. --role admin)
  --expires   lifetime in seconds (default 3600)
  --secret    signing secret (overrides Auth:Jwt:Secret)
  --issuer    iss (overrides Auth:Jwt:Issuer)
  --audience  aud (overrides Auth:Jwt:Audience)

With --device, prints a device token for the embedded MQTT broker instead (MQTT password; any
username): HS256 with Ingestion:Mqtt:DeviceKey (the development key in Development), claims
sub = device id, tenant_id, aud = mqtt. It does not expire unless --expires says so.
  --device      device id (same rules as --tenant)
  --device-key  signing key (overrides Ingestion:Mqtt:DeviceKey)
`;

const TOKEN_COMMAND = {
  name: 'token',
  usage: TOKEN_USAGE,
  configArgs: true,
  options: {
    sub: { type: 'string' },
    device: { type: 'string' },
    'device-key': { type: 'string' },
    tenant: { type: 'string' },
    role: { type: 'string', multiple: true },
    expires: { type: 'string' },
    secret: { type: 'string' },
    issuer: { type: 'string' },
    audience: { type: 'string' },
  },
} as const;

/**
 * Runs the token CLI; returns the exit code (0 ok, 64 bad arguments, 78 bad configuration).
 * `resolveSettings` receives the configuration arguments, so the caller decides which files and
 * environment the configuration comes from (token.ts: the process's; tests: their own).
 */
export async function runTokenCli(
  argv: string[],
  resolveSettings: ResolveJwtSettings,
  io: CliIo,
  now: number = systemClock.now(),
): Promise<number> {
  const fail = (message: string): number => {
    const failure = usageFailure(TOKEN_COMMAND, message);
    io.stderr(failure.stderr);
    return failure.code;
  };
  const line = readCommandLine(TOKEN_COMMAND, argv);
  if (line.kind === 'exit') {
    if (line.stdout) io.stdout(line.stdout);
    if (line.stderr) io.stderr(line.stderr);
    return line.code;
  }
  const { values, configArgs } = line;
  if (values.device !== undefined) return runDeviceToken(values, resolveSettings, configArgs, io, now, fail);
  if (!values.sub) return fail('--sub is required');
  if (!values.tenant) return fail('--tenant is required');
  if (!isValidId(values.tenant)) return fail(`--tenant "${values.tenant}" is not a valid tenant id`);
  const roles = values.role ?? [];
  if (roles.some((r) => r.length === 0)) return fail('--role must not be empty');
  const expires = values.expires ?? '3600';
  if (!/^[1-9]\d{0,9}$/.test(expires)) return fail(`--expires "${expires}" is not a positive whole number of seconds`);
  if (values.secret !== undefined && Buffer.byteLength(values.secret) < 32)
    return fail('the secret must be at least 32 bytes');

  let settings: JwtSigningSettings;
  try {
    settings = resolveSettings(configArgs);
  } catch (err) {
    io.stderr(`token: ${(err as Error).message}\n`);
    return TokenExit.config;
  }
  const secret = values.secret ?? settings.secret;
  if (secret === undefined) {
    // An asymmetric issuer (Auth:Jwt:JwksUri) holds its own private key; this tool cannot sign for it.
    io.stderr(
      'token: Auth:Jwt:Secret is not configured (the hub trusts Auth:Jwt:JwksUri); pass --secret or configure it\n',
    );
    return TokenExit.config;
  }

  let token: string;
  try {
    token = await signUserToken({
      sub: values.sub,
      tenantId: values.tenant,
      roles,
      secret,
      issuer: values.issuer ?? settings.issuer,
      audience: values.audience ?? settings.audience,
      expiresInSeconds: Number(expires),
      now,
    });
  } catch (err) {
    return fail((err as Error).message);
  }
  io.stdout(`${token}\n`);
  return TokenExit.ok;
}

async function runDeviceToken(
  values: { device?: string; tenant?: string; sub?: string; role?: string[]; expires?: string; 'device-key'?: string },
  resolveSettings: ResolveJwtSettings,
  configArgs: string[],
  io: CliIo,
  now: number,
  fail: (message: string) => number,
): Promise<number> {
  if (values.sub !== undefined || values.role !== undefined)
    return fail('--device and --sub/--role do not go together');
  if (!isValidId(values.device)) return fail(`--device "${values.device}" is not a valid device id`);
  if (!values.tenant) return fail('--tenant is required');
  if (!isValidId(values.tenant)) return fail(`--tenant "${values.tenant}" is not a valid tenant id`);
  if (values.expires !== undefined && !/^[1-9]\d{0,9}$/.test(values.expires)) {
    return fail(`--expires "${values.expires}" is not a positive whole number of seconds`);
  }
  let key = values['device-key'];
  if (key !== undefined && Buffer.byteLength(key) < 32) return fail('the device key must be at least 32 bytes');
  if (key === undefined) {
    try {
      key = resolveSettings(configArgs).deviceKey;
    } catch (err) {
      io.stderr(`token: ${(err as Error).message}\n`);
      return TokenExit.config;
    }
  }
  if (key === undefined) {
    io.stderr(
      'token: Ingestion:Mqtt:DeviceKey is not configured (the embedded broker is off); pass --device-key or configure it\n',
    );
    return TokenExit.config;
  }
  const token = await signDeviceToken({
    tenantId: values.tenant,
    deviceId: values.device,
    key,
    ...(values.expires !== undefined ? { expiresInSeconds: Number(values.expires) } : {}),
    now,
  });
  io.stdout(`${token}\n`);
  return TokenExit.ok;
}
