import type { Logger } from 'pino';
import type { RedisBackplane } from '../adapters/redis/redis-backplane.js';
import { RedisConnection } from '../adapters/redis/redis-connection.js';
import { hubKeyPrefix } from '../adapters/redis/hub-key-prefix.js';
import {
  ingestFenceKey,
  ingestFenceKeys,
  ingestLeaseKey,
  ingestPartitionsKey,
  publishedSeqsKey,
  RedisIngestLease,
} from '../adapters/redis/redis-ingest-lease.js';
import { RedisMembership } from '../adapters/redis/redis-membership.js';
import { PartitionBalancer } from '../realtime/partition-balancer.js';
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
  /** In start order, after the backplane: the Redis connection, last values loaded, peers, the partition balancer, the leases. */
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
  let balancer: PartitionBalancer | undefined;
  const leases = Array.from(
    { length: partitions },
    (_, index) =>
      new RedisIngestLease({
        redis: state.client,
        key: ingestLeaseKey(config.hub.name, config.redisCluster, index, partitions),
        fenceKey: ingestFenceKey(config.hub.name, config.redisCluster, index, partitions),
        ttlMs: config.cluster.ingestLeaseMs,
        clock,
        instanceId: config.hub.instanceId,
        log: clusterLog,
        partition: { index, count: partitions },
        countKey: ingestPartitionsKey(config.hub.name, config.redisCluster),
        ...(partitions > 1 ? { wants: () => balancer!.wants() } : {}),
      }),
  );
  if (partitions > 1)
    balancer = new PartitionBalancer({
      leases,
      membership: new RedisMembership({
        redis: state.client,
        key: `${keyPrefix}ingest-members`,
        instanceId: config.hub.instanceId,
        ttlMs: config.cluster.ingestLeaseMs,
        log: clusterLog,
      }),
      intervalMs: config.cluster.ingestLeaseMs / 3,
      clock,
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
    services: [state, loadLastValues, peers, ...(balancer ? [balancer] : []), ...leases],
  };
}
