import { BACKPLANE_KEYS } from './keys/backplane-keys.js';
import { CLUSTER_KEYS } from './keys/cluster-keys.js';
import { DATABASE_KEYS } from './keys/database-keys.js';
import { CACHE_KEYS } from './keys/cache-keys.js';
import { FIRMWARE_KEYS } from './keys/firmware-keys.js';
import { HISTORY_KEYS } from './keys/history-keys.js';
import { HOST_KEYS } from '../host/config/host-keys.js';
import type { KeyDefinition } from '../host/config/key-definition.js';
import { HUB_KEYS } from './keys/hub-keys.js';
import { ORDERS_KEYS } from './keys/orders-keys.js';
import { INGESTION_KEYS } from './keys/ingestion-keys.js';
import { SECURITY_KEYS } from './keys/security-keys.js';
import { SIMULATOR_KEYS } from './keys/simulator-keys.js';
import { TELEMETRY_KEYS } from './keys/telemetry-keys.js';

/**
 * Every key the app reads: the host's own, then each area's, declared next to its code. Validated
 * once by the host's loader (a key declared twice stops start-up) and frozen in AppConfig. A key
 * whose default, requirement or check reads another key comes after it in this list or is
 * `dependent` (resolved after every key that is not).
 */
export const APP_CONFIG_KEYS: readonly KeyDefinition[] = [
  ...HOST_KEYS,
  ...INGESTION_KEYS,
  ...BACKPLANE_KEYS,
  ...CLUSTER_KEYS,
  ...HUB_KEYS,
  ...SECURITY_KEYS,
  ...SIMULATOR_KEYS,
  ...CACHE_KEYS,
  ...FIRMWARE_KEYS,
  ...DATABASE_KEYS,
  ...HISTORY_KEYS,
  ...ORDERS_KEYS,
  ...TELEMETRY_KEYS,
];
