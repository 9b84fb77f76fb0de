import { resolveConfig, type ConfigInputs } from '../host/config/load-config.js';
import { WELL_KNOWN_SECRETS } from './keys/security-keys.js';
import { toAppConfig, type AppConfig } from './app-config.js';
import { APP_CONFIG_KEYS } from './app-config-keys.js';

/** The app's configuration: the host's loader over the composed key list, typed and frozen. Throws ConfigError. */
export function loadConfig(inputs: ConfigInputs): AppConfig {
  return toAppConfig(resolveConfig(inputs, APP_CONFIG_KEYS, { wellKnownSecrets: WELL_KNOWN_SECRETS }));
}
