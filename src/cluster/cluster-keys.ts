import type { KeyDefinition } from '../host/config/key-definition.js';
import * as p from '../host/config/parsers.js';

/** The cluster's keys: how instances sharing `ConnectionStrings:redis` share ingestion. */
export const CLUSTER_KEYS: readonly KeyDefinition[] = [
  // With Redis, one id for the cluster: only the ingest lease holder connects, and the next holder
  // takes over its persistent session (QoS 1 readings queued meanwhile included). Without Redis,
  // derived from Hub:InstanceId: distinct across instances (a shared id makes the broker hand the
  // session back and forth), and stable across restarts when the instance id is set.
  {
    key: 'Ingestion:Mqtt:ClientId',
    parse: p.str({ pattern: /^[A-Za-z0-9_.-]{1,64}$/ }),
    // after ConnectionStrings:redis (itself dependent), hence this list's place after the backplane's
    dependent: true,
    default: (ctx) =>
      (ctx.get('ConnectionStrings:redis') !== undefined ? `telemetry-hub-${String(ctx.get('Hub:Name'))}` : `telemetry-hub-${String(ctx.get('Hub:InstanceId'))}`).slice(0, 64),
  },
  // seconds the ingest lease lasts unrenewed: how long a crashed ingester's standby waits to take
  // over (renewed every third of it). Shorter fails over faster and renews more often.
  { key: 'Cluster:IngestLeaseSeconds', parse: p.num(0.5, 600), default: () => 5 },
];
