import { BACKPLANE_KEYS } from '../backplane/backplane-keys.js';
import { DATABASE_KEYS } from '../db/database-keys.js';
import { CACHE_KEYS } from '../cache/cache-keys.js';
import { FIRMWARE_KEYS } from '../firmware/firmware-keys.js';
import { HISTORY_KEYS } from '../history/history-keys.js';
import { HOST_KEYS } from '../host/config/host-keys.js';
import type { KeyDefinition } from '../host/config/key-definition.js';
import { HUB_KEYS } from '../hub/hub-keys.js';
import { ORDERS_KEYS } from '../orders/orders-keys.js';
import { INGESTION_KEYS } from '../ingest/ingestion-keys.js';
import { SECURITY_KEYS } from '../security/security-keys.js';
import { SIMULATOR_KEYS } from '../simulator/simulator-keys.js';
import { TELEMETRY_KEYS } from '../telemetry/telemetry-keys.js';

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
