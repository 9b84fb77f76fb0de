import type { ReferenceSection } from '../host/config/configuration-reference.js';
import { HOST_KEYS } from '../host/config/host-keys.js';
import { BACKPLANE_KEYS } from './keys/backplane-keys.js';
import { CACHE_KEYS } from './keys/cache-keys.js';
import { CLUSTER_KEYS } from './keys/cluster-keys.js';
import { DATABASE_KEYS } from './keys/database-keys.js';
import { FIRMWARE_KEYS } from './keys/firmware-keys.js';
import { GATEWAY_KEYS } from './keys/gateway-keys.js';
import { HISTORY_KEYS } from './keys/history-keys.js';
import { HUB_KEYS } from './keys/hub-keys.js';
import { INGESTION_KEYS } from './keys/ingestion-keys.js';
import { ORDERS_KEYS } from './keys/orders-keys.js';
import { SECURITY_KEYS } from './keys/security-keys.js';
import { SIMULATOR_KEYS } from './keys/simulator-keys.js';
import { TELEMETRY_KEYS } from './keys/telemetry-keys.js';

/**
 * The programs' key tables as docs/configuration.md lists them: the hub (which the worker and the
 * migrations CLI read a part of) and the gateway. Every key the hub reads is here: a test checks it
 * against APP_CONFIG_KEYS.
 */
export const CONFIGURATION_SECTIONS: readonly ReferenceSection[] = [
  {
    title: 'The hub (`npm start`, `node dist/src/main.js`, `npm run worker`, `npm run migrate`)',
    intro:
      'The worker reads the same keys as the hub; `npm run migrate` reads `ConnectionStrings:postgres` and `Database:*` only.',
    areas: [
      { name: 'Host: HTTP, lifecycle, health, logging', keys: HOST_KEYS },
      { name: 'Ingestion (MQTT, Event Hubs, throttle)', keys: INGESTION_KEYS },
      { name: 'Backplane', keys: BACKPLANE_KEYS },
      { name: 'Cluster', keys: CLUSTER_KEYS },
      { name: 'Hub', keys: HUB_KEYS },
      { name: 'Security', keys: SECURITY_KEYS },
      { name: 'Built-in simulator', keys: SIMULATOR_KEYS },
      { name: 'Caching', keys: CACHE_KEYS },
      { name: 'Firmware', keys: FIRMWARE_KEYS },
      { name: 'Database', keys: DATABASE_KEYS },
      { name: 'History', keys: HISTORY_KEYS },
      { name: 'Orders, queue, outbox, profile', keys: ORDERS_KEYS },
      { name: 'Telemetry (OpenTelemetry, Prometheus)', keys: TELEMETRY_KEYS },
    ],
  },
  {
    title: 'The gateway (`npm run gateway`)',
    intro: 'The gateway reads the host keys above (`Http:*`, `Host:*`, `Health:*`, `Logging:*`) and these.',
    areas: [{ name: 'Gateway', keys: GATEWAY_KEYS }],
  },
];
