import { HOST_KEYS } from '../host/config/host-keys.js';
import type { KeyDefinition } from '../host/config/key-definition.js';
import { AREA_KEYS } from '../host/config/schema.js';

/**
 * Every key the app reads: the host's own, then each area's. Validated once by the host's loader
 * (a key declared twice stops start-up) and frozen in AppConfig.
 */
export const APP_CONFIG_KEYS: readonly KeyDefinition[] = [...HOST_KEYS, ...AREA_KEYS];
