import type { AppConfig } from '../compose/app-config.js';
import { loadConfig } from '../compose/load-app-config.js';

/** The settings the token CLI signs with: user tokens (`Auth:Jwt:*`) and device tokens (`Ingestion:Mqtt:DeviceKey`). */
export type JwtSigningSettings = Pick<AppConfig['jwt'], 'secret' | 'issuer' | 'audience' | 'jwksUri'> & {
  deviceKey?: string | undefined;
};

/**
 * `Auth:Jwt:*` resolved exactly as the hub resolves it (defaults < appsettings.json <
 * appsettings.{Environment}.json < `Section__Key` env < `--Section:Key` args), so a token printed
 * here is one the hub started with the same settings accepts. The environment is Development unless
 * `HUB_ENVIRONMENT` or `--environment` says otherwise: the tool exists for development.
 * Throws ConfigError, naming the key, like the hub's start-up.
 */
export function jwtSettingsFromConfig(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  contentRoot: string,
): JwtSigningSettings {
  const withEnvironment = env['HUB_ENVIRONMENT'] === undefined ? { ...env, HUB_ENVIRONMENT: 'Development' } : env;
  const config = loadConfig({ args, env: withEnvironment, contentRoot });
  const { secret, issuer, audience, jwksUri } = config.jwt;
  return { secret, issuer, audience, jwksUri, deviceKey: config.mqtt.deviceKey };
}
