import type { DefaultContext, KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';
import { isGeneratedInstanceId } from './hub-keys.js';

/** The hub's MQTT client id outlives its process: someone (a restart, the next ingester) resumes its session. */
function clientIdResumed(ctx: DefaultContext): boolean {
  if (ctx.get('ConnectionStrings:redis') !== undefined) return true;
  const instanceId = ctx.get('Hub:InstanceId');
  return (
    !isGeneratedInstanceId(instanceId) ||
    ctx.get('Ingestion:Mqtt:ClientId') !== `telemetry-hub-${String(instanceId)}`.slice(0, 64)
  );
}

/** The cluster's keys: how instances sharing `ConnectionStrings:redis` share ingestion. */
export const CLUSTER_KEYS: readonly KeyDefinition[] = [
  // With Redis, one id for the cluster: only the ingest lease holder connects, and the next holder
  // takes over its persistent session (QoS 1 readings queued meanwhile included). Without Redis,
  // derived from Hub:InstanceId: distinct across instances (a shared id makes the broker hand the
  // session back and forth), and stable across restarts when the instance id is set.
  {
    key: 'Ingestion:Mqtt:ClientId',
    doc: "the hub's client id on an external broker. In a cluster one id for all instances: only the ingest lease holder connects, and the next holder inherits its persistent session (see Scale-out (docs/operations.md)). Alone: distinct per instance, and stable across restarts when `Hub:InstanceId` is set, so a persistent session survives them (the hub reads its embedded broker in-process, without one)",
    defaultDoc: 'with `ConnectionStrings:redis`: `telemetry-hub-{Hub:Name}`; without: `telemetry-hub-{Hub:InstanceId}`',
    parse: p.str({ pattern: /^[A-Za-z0-9_.-]{1,64}$/ }),
    // after ConnectionStrings:redis (itself dependent), hence this list's place after the backplane's
    dependent: true,
    default: (ctx) =>
      (ctx.get('ConnectionStrings:redis') !== undefined
        ? `telemetry-hub-${String(ctx.get('Hub:Name'))}`
        : `telemetry-hub-${String(ctx.get('Hub:InstanceId'))}`
      ).slice(0, 64),
  },
  // seconds the ingest lease lasts unrenewed: how long a crashed ingester's standby waits to take
  // over (renewed every third of it). Shorter fails over faster and renews more often.
  // seconds the broker keeps the hub's QoS 1 session after it disconnects: long enough for the next
  // ingester or a restart to resume it; 0 (a clean session) when nobody will, so no restart leaves
  // a session behind that queues readings for no one.
  {
    key: 'Ingestion:Mqtt:SessionExpirySeconds',
    doc: "with `Ingestion:Mqtt:Qos=1`: how long an external broker keeps the hub's session (and queues readings for it) once the hub disconnected, so a restart or the next ingester resumes it (MQTT 5 session expiry); 0 asks for a clean session, which ends with the connection (also on MQTT 3.1.1, where any other value keeps the session until the same client id returns). See Ingestion (docs/ingestion.md)",
    defaultDoc:
      '60 when the client id outlives the process (`ConnectionStrings:redis`, `Hub:InstanceId` or `Ingestion:Mqtt:ClientId` set), else 0',
    parse: p.int(0, 604_800),
    dependent: true,
    default: (ctx) => (clientIdResumed(ctx) ? 60 : 0),
  },
  // seqs one Redis round trip reserves per device for the ingester: more means fewer round trips,
  // and a larger jump in a device's seq when the ingester changes (docs/ingestion.md).
  {
    key: 'Cluster:SeqBlockSize',
    doc: 'with Redis: how many `seq` numbers the ingester reserves per device in one round trip; what an ingester leaves unused of its blocks when the lease moves is skipped (a jump in `seq`, never a repeat; see Ingestion (docs/ingestion.md))',
    parse: p.int(1, 1_000_000),
    default: () => 100,
  },
  // How many instances can share the reading of one external broker: each partition is leased to
  // one instance at a time, and an instance holding several reads the broker once per partition.
  {
    key: 'Cluster:IngestPartitions',
    doc: "with Redis and `ConnectionStrings:mqtt`: how many partitions the external broker's devices are split into (by a hash of the topic), each read by one instance at a time under a lease of its own with a persistent session of its own (client id `{Ingestion:Mqtt:ClientId}-p{i}of{P}`), spread evenly over the live instances; up to this many instances then share ingestion. Every instance of a cluster uses the same value (one with another stands by until those running stop); 1 keeps the single ingester (see Ingestion (docs/ingestion.md))",
    parse: p.int(1, 64),
    default: () => 1,
  },
  {
    key: 'Cluster:IngestLeaseSeconds',
    doc: 'with Redis: how long the ingest lease lasts unrenewed (renewed every third of it), i.e. how soon a standby takes over from a crashed ingester',
    parse: p.num(0.5, 600),
    default: () => 5,
  },
];
