import type { Logger } from 'pino';
import type { Clock } from '../../host/clock.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import { PartitionBalancer } from '../../realtime/partition-balancer.js';
import { hubKeyPrefix } from './hub-key-prefix.js';
import type { RedisClient } from './redis-connection.js';
import { ingestFenceKey, ingestLeaseKey, ingestPartitionsKey, RedisIngestLease } from './redis-ingest-lease.js';
import { RedisMembership } from './redis-membership.js';

export interface RedisIngestLeasesOptions {
  redis: RedisClient;
  hubName: string;
  /** Keys with the hub name as a hash tag (a Redis Cluster). */
  cluster: boolean;
  /** `Cluster:IngestPartitions`. */
  partitions: number;
  ttlMs: number;
  clock: Clock;
  instanceId: string;
  log: Logger;
}

/**
 * A cluster's ingest leases in Redis: the single lease, or with several partitions one lease per
 * partition run by a balancer that spreads them over the live instances (docs/ingestion.md). The
 * hosted service starts them (the balancer's first beat before any claim) and stops them.
 */
export function redisIngestLeases(options: RedisIngestLeasesOptions): {
  leases: RedisIngestLease[];
  service: HostedService | undefined;
} {
  const { redis, hubName, cluster, partitions, ttlMs, clock, instanceId, log } = options;
  let balancer: PartitionBalancer | undefined;
  const leases = Array.from(
    { length: partitions },
    (_, index) =>
      new RedisIngestLease({
        redis,
        key: ingestLeaseKey(hubName, cluster, index, partitions),
        fenceKey: ingestFenceKey(hubName, cluster, index, partitions),
        countKey: ingestPartitionsKey(hubName, cluster),
        ttlMs,
        clock,
        instanceId,
        log,
        partition: { index, count: partitions },
        ...(partitions > 1
          ? { claimSlot: () => balancer!.claimSlot(), singleKey: ingestLeaseKey(hubName, cluster) }
          : {}),
      }),
  );
  if (partitions === 1) return { leases, service: undefined };
  balancer = new PartitionBalancer({
    leases,
    membership: new RedisMembership({
      redis,
      // Per count: an instance standing by with another count is no member of this one.
      key: `${hubKeyPrefix(hubName, cluster)}ingest-members:${partitions}`,
      instanceId,
      ttlMs,
      log,
    }),
    intervalMs: ttlMs / 3,
    clock,
    log,
  });
  return { leases, service: balancer };
}
