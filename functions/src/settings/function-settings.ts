import type { JwtVerifierOptions } from '../../../src/host/security/jwt-bearer.js';
import {
  parseConnectionString,
  type WebPubSubConnectionString,
} from '../../../src/wire/webpubsub/connection-string.js';

/** The app settings the functions read (contract "Serverless functions"), checked. */
export interface FunctionSettings {
  /** `WebPubSubConnectionString` as given (the SDK parses it again). */
  readonly connectionString: string;
  readonly connection: WebPubSubConnectionString;
  /** `WebPubSubHub`. */
  readonly hub: string;
  /** `Auth__Jwt__Secret` (or `Auth__Jwt__JwksUri`), `Auth__Jwt__Issuer`, `Auth__Jwt__Audience`. */
  readonly jwt: JwtVerifierOptions;
}

/** A missing or malformed setting; `setting` names it (logged, never sent to callers). */
export class FunctionSettingsError extends Error {
  constructor(
    readonly setting: string,
    detail: string,
  ) {
    super(`app setting ${setting} ${detail}`);
    this.name = 'FunctionSettingsError';
  }
}

/** The service's hub name rule. */
const HUB_NAME = /^[A-Za-z][A-Za-z0-9_`,.[\]]{0,127}$/;

/** Reads and checks the settings from an environment-like record. Throws FunctionSettingsError. */
export function readFunctionSettings(env: Readonly<Record<string, string | undefined>>): FunctionSettings {
  const connectionString = required(env, 'WebPubSubConnectionString');
  let connection: WebPubSubConnectionString;
  try {
    connection = parseConnectionString(connectionString);
  } catch (err) {
    throw new FunctionSettingsError(
      'WebPubSubConnectionString',
      (err as Error).message.replace(/^connection string /, ''),
    );
  }
  const hub = required(env, 'WebPubSubHub');
  if (!HUB_NAME.test(hub)) throw new FunctionSettingsError('WebPubSubHub', 'is not a valid hub name');
  const secret = optional(env, 'Auth__Jwt__Secret');
  const jwksUri = optional(env, 'Auth__Jwt__JwksUri');
  if ((secret === undefined) === (jwksUri === undefined)) {
    throw new FunctionSettingsError('Auth__Jwt__Secret', 'or Auth__Jwt__JwksUri must be set (exactly one)');
  }
  const jwt: JwtVerifierOptions = {
    ...(secret !== undefined ? { secret } : { jwksUri: jwksUri! }),
    issuer: required(env, 'Auth__Jwt__Issuer'),
    audience: required(env, 'Auth__Jwt__Audience'),
  };
  return { connectionString, connection, hub, jwt };
}

/**
 * `Auth__Jwt__X`, or `Auth:Jwt:X` as the hub spells it: Linux plans refuse ':' in setting names,
 * local.settings.json does not.
 */
function optional(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name] ?? env[name.replaceAll('__', ':')];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function required(env: Readonly<Record<string, string | undefined>>, name: string): string {
  const value = optional(env, name);
  if (value === undefined) throw new FunctionSettingsError(name, 'is not set');
  return value;
}
