/**
 * What every Redis key and channel of a hub name starts with. On a Redis Cluster the hub name is
 * a hash tag (`telemetry-hub:{name}:`): the fenced scripts read the ingest lease's fencing token
 * and write a tenant's data (or publish) in one call, which a cluster allows only within one slot,
 * so a hub's keys and channels share its slot. A single Redis keeps the untagged names it always had.
 */
export function hubKeyPrefix(hubName: string, cluster: boolean): string {
  return cluster ? `telemetry-hub:{${hubName}}:` : `telemetry-hub:${hubName}:`;
}
