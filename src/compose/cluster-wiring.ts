import type { Logger } from 'pino';
import type { RedisBackplane } from '../adapters/redis/redis-backplane.js';
import { RedisConnection } from '../adapters/redis/redis-connection.js';
import { hubKeyPrefix } from '../adapters/redis/hub-key-prefix.js';
import { ingestFenceKeys, publishedSeqsKey, type RedisIngestLease } from '../adapters/redis/redis-ingest-lease.js';
import { redisIngestLeases } from '../adapters/redis/redis-ingest-leases.js';
import { partitionOfFence } from '../realtime/ingest-partitions.js';
import { RedisPeerConnections } from '../adapters/redis/redis-peer-connections.js';
import { RedisSeqAllocator } from '../adapters/redis/redis-seq-allocator.js';
import { RedisRedeliveryWindow } from '../adapters/redis/redis-redelivery-window.js';
import { RefreshingBackplane } from '../realtime/refreshing-backplane.js';
import { SharedLastValues } from '../adapters/redis/shared-last-values.js';
import type { Clock } from '../host/clock.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { categoryLogger } from '../host/logging.js';
import type { Backplane } from '../realtime/backplane.js';
import type { DeviceRegistry } from '../realtime/device-registry.js';
import type { AppConfig } from './app-config.js';

/** What instances sharing Redis share besides the backplane (docs/operations.md, "Scale-out"). */
export interface ClusterParts {
  /** One per ingest partition (`Cluster:IngestPartitions`), index = partition. */
  leases: RedisIngestLease[];
  /** Whether the ingest lease holding `fence` (a reading's `RawReading.fence`) still lasts here. */
  holds(fence: number): boolean;
  seq: RedisSeqAllocator;
  /** The redelivery window shared by the instances (`Ingestion:RedeliveryWindowSeconds`). */
  redelivery: RedisRedeliveryWindow;
  lastValues: SharedLastValues;
  peers: RedisPeerConnections;
  /** The backplane the hub uses: watching a group also refreshes its device's last value. */
  hubBackplane: Backplane;
  /** In start order, after the backplane: the Redis connection, last values loaded, peers, the lease (or the partition balancer, which runs the leases). */
  services: HostedService[];
}

/** The cluster's parts over one Redis connection (keys and channels under `telemetry-hub:{Hub:Name}:`, the hub name a hash tag on a Redis Cluster). */
export function createClusterParts(
  config: AppConfig,
  log: Logger,
  clock: Clock,
  registry: DeviceRegistry,
  backplane: RedisBackplane,
): ClusterParts {
  const clusterLog = categoryLogger(log, config, 'Cluster');
  const state = new RedisConnection({
    url: config.redisUrl!,
    cluster: config.redisCluster,
    name: 'cluster-redis',
    log: clusterLog,
    autoPipelining: true,
  });
  const keyPrefix = hubKeyPrefix(config.hub.name, config.redisCluster);
  const partitions = config.cluster.ingestPartitions;
  const fenceKeyOf = ingestFenceKeys(config.hub.name, config.redisCluster, partitions);
  const lastValues = new SharedLastValues(state.client, { keyPrefix, fenceKeyOf, registry, log: clusterLog });
  // Readings other instances accepted keep this one's `last` and device list current for the devices it follows.
  backplane.onMessage((envelope) => lastValues.learn(envelope));
  const peers = new RedisPeerConnections({ url: config.redisUrl!, keyPrefix, pub: state.client, log: clusterLog });
  // Several partitions: each instance takes its share of them (the live instances counted by a
  // heartbeat in Redis). One: whoever claims the lease first ingests, as before partitions.
  const { leases, service: balancer } = redisIngestLeases({
    redis: state.client,
    hubName: config.hub.name,
    cluster: config.redisCluster,
    partitions,
    ttlMs: config.cluster.ingestLeaseMs,
    clock,
    instanceId: config.hub.instanceId,
    log: clusterLog,
  });
  const loadLastValues: HostedService = {
    name: 'shared-last-values',
    start: async () => clusterLog.info({ devices: await lastValues.load() }, 'last values loaded from redis'),
    stop: async () => undefined,
  };
  return {
    leases,
    holds: (fence) => leases[partitionOfFence(fence, partitions)]!.fence === fence,
    seq: new RedisSeqAllocator(state.client, {
      keyPrefix: `${keyPrefix}seq:`,
      fenceKeyOf,
      blockSize: config.cluster.seqBlockSize,
    }),
    redelivery: new RedisRedeliveryWindow({
      redis: state.client,
      keyPrefix: `${keyPrefix}redelivery:`,
      fenceKeyOf,
      publishedKey: publishedSeqsKey(config.hub.name, config.redisCluster),
      windowMs: Math.max(config.redelivery.windowMs, 1000),
      clock,
      log: clusterLog,
    }),
    lastValues,
    peers,
    hubBackplane: new RefreshingBackplane(backplane, (group) => lastValues.refresh(group)),
    // With partitions the balancer runs the leases: its first beat before they claim, leaving the
    // members before they are freed.
    services: [state, loadLastValues, peers, ...(balancer ? [balancer] : leases)],
  };
}
