import type { Logger } from 'pino';
import type { RedisBackplane } from '../backplane/redis-backplane.js';
import { ClusterRedis } from '../cluster/cluster-redis.js';
import { RedisIngestLease } from '../cluster/redis-ingest-lease.js';
import { RedisPeerConnections } from '../cluster/redis-peer-connections.js';
import { RedisSeqAllocator } from '../cluster/redis-seq-allocator.js';
import { RefreshingBackplane } from '../cluster/refreshing-backplane.js';
import { SharedLastValues } from '../cluster/shared-last-values.js';
import type { Clock } from '../host/clock.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { categoryLogger } from '../host/logging.js';
import type { Backplane } from '../hub/backplane.js';
import type { DeviceRegistry } from '../hub/device-registry.js';
import type { AppConfig } from './app-config.js';

/** What instances sharing Redis share besides the backplane (Scale-out in the README). */
export interface ClusterParts {
  lease: RedisIngestLease;
  seq: RedisSeqAllocator;
  lastValues: SharedLastValues;
  peers: RedisPeerConnections;
  /** The backplane the hub uses: watching a group also refreshes its device's last value. */
  hubBackplane: Backplane;
  /** In start order, after the backplane: the Redis connection, last values loaded, peers, the lease. */
  services: HostedService[];
}

/** The cluster's parts over one Redis connection (keys and channels under `telemetry-hub:{Hub:Name}:`). */
export function createClusterParts(config: AppConfig, log: Logger, clock: Clock, registry: DeviceRegistry, backplane: RedisBackplane): ClusterParts {
  const clusterLog = categoryLogger(log, config, 'Cluster');
  const state = new ClusterRedis({ url: config.redisUrl!, log: clusterLog });
  const keyPrefix = `telemetry-hub:${config.hub.name}:`;
  const lastValues = new SharedLastValues(state.client, { keyPrefix, registry, log: clusterLog });
  // Readings other instances accepted keep this one's `last` and device list current for the devices it follows.
  backplane.onMessage((envelope) => lastValues.learn(envelope));
  const peers = new RedisPeerConnections({ url: config.redisUrl!, keyPrefix, pub: state.client, log: clusterLog });
  const lease = new RedisIngestLease({
    redis: state.client,
    key: `${keyPrefix}ingest-lease`,
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
    lease,
    seq: new RedisSeqAllocator(state.client, { keyPrefix: `${keyPrefix}seq:` }),
    lastValues,
    peers,
    hubBackplane: new RefreshingBackplane(backplane, (group) => lastValues.refresh(group)),
    services: [state, loadLastValues, peers, lease],
  };
}
