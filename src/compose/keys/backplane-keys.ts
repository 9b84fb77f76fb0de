import type { KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';

/** The Redis backplane's keys; the connection string's requirement reads ConnectionStrings:eventhubs (INGESTION_KEYS), hence `dependent`. */
export const BACKPLANE_KEYS: readonly KeyDefinition[] = [
  // Event Hubs checkpoints in memory replay every retained event after each restart: not in Production.
  {
    key: 'ConnectionStrings:redis',
    doc: 'e.g. `redis://127.0.0.1:6379`, `redis://:password@host:6379`, `rediss://:password@host:6380` (TLS; a private CA through `NODE_EXTRA_CA_CERTS`); instances sharing it (and `Hub:Name`) are one cluster',
    defaultDoc: 'unset → in-memory; required in Production with `ConnectionStrings:eventhubs`',
    parse: p.url(['redis', 'rediss']),
    secret: true,
    dependent: true,
    required: (ctx) => ctx.environment === 'Production' && ctx.get('ConnectionStrings:eventhubs') !== undefined,
    requiredWhen:
      'when ConnectionStrings:eventhubs is set (Event Hubs checkpoints; in memory every restart reads all retained events again)',
  },
  // A Redis Cluster: sharded pub/sub, and a hub's keys under a hash tag (a slot of their own).
  {
    key: 'Redis:Cluster',
    doc: "`ConnectionStrings:redis` names a node of a Redis Cluster (7.0 or later); the others are discovered. The backplane then uses sharded pub/sub (SSUBSCRIBE/SPUBLISH), and a hub's keys and channels are named `telemetry-hub:{Hub:Name}:…` (a hash tag: one slot, hence one master and its replicas, per hub name). See Scale-out (docs/operations.md)",
    parse: p.bool,
    default: () => false,
  },
];
