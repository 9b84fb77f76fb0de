import { ID_PATTERN } from '../../host/ids.js';
import { DATABASE_KEYS } from './database-keys.js';
import type { KeyDefinition } from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';
import { HUB_KEYS } from './hub-keys.js';
import { SECURITY_KEYS } from './security-keys.js';
import { parseStamps, parseTenantMap } from '../../features/gateway/stamps.js';

/**
 * The gateway's own keys. It shares the host's (`Http:*`, `Host:*`, `Health:*`, `Logging:*`) and
 * the hubs' token settings (`Auth:Jwt:*`, `Hub:AccessKey`) under the same names, so one set of
 * environment variables configures both.
 */
export const GATEWAY_KEYS: readonly KeyDefinition[] = [
  // stamps and their instances: `pool-1=http://10.0.0.5:8080 http://10.0.0.6:8080; silo-acme=http://10.0.1.5:8080`
  {
    key: 'Gateway:Stamps',
    doc: '`name=url url; name=url`, e.g. `pool-1=http://10.0.0.5:8080 http://10.0.0.6:8080; silo-acme=http://10.0.1.5:8080`',
    parse: parseStamps,
    required: () => true,
  },
  // the in-memory tenant catalogue, `tenant=stamp, …`; with ConnectionStrings:postgres the table tenant_stamps is the catalogue instead
  {
    key: 'Gateway:Tenants',
    doc: 'the in-memory tenant catalogue, `tenant=stamp, tenant=stamp`; every stamp named must be in `Gateway:Stamps`',
    parse: parseTenantMap,
  },
  // the stamp of requests without credentials (the dashboard's files, sign-in, health); unset → 401
  {
    key: 'Gateway:DefaultStamp',
    doc: 'the stamp of requests that carry no credentials',
    defaultDoc: 'unset (401 without credentials)',
    parse: p.str({ pattern: ID_PATTERN }),
  },
  // seconds between readiness polls of every instance
  {
    key: 'Gateway:HealthIntervalSeconds',
    doc: "how often every instance's `/health/ready` is polled",
    parse: p.num(0.05, 300),
    default: () => 2,
  },
  // seconds one readiness poll may take (then the instance counts as not ready)
  {
    key: 'Gateway:HealthTimeoutSeconds',
    doc: "an instance's readiness poll slower than this counts as not ready",
    parse: p.num(0.05, 60),
    default: () => 2,
  },
  // seconds an upstream may stay silent (before and while answering) before the request fails with 504
  {
    key: 'Gateway:UpstreamTimeoutSeconds',
    doc: 'an instance silent this long (before or while answering) fails the request with 504',
    parse: p.num(0.1, 3600),
    default: () => 60,
  },
  // seconds a tenant's stamp (or its absence) is cached from the database catalogue
  {
    key: 'Gateway:CatalogueCacheSeconds',
    doc: 'how long an answer of the database catalogue is kept (unknown tenants included)',
    parse: p.num(0, 3600),
    default: () => 30,
  },
  ...SECURITY_KEYS.filter((k) => k.key.startsWith('Auth:Jwt:')),
  // The catalogue's database: a PostgreSQL server only (an embedded database belongs to one hub process).
  ...DATABASE_KEYS.filter((k) =>
    ['ConnectionStrings:postgres', 'Database:MaxConnections', 'Database:StatementTimeoutSeconds'].includes(k.key),
  ),
  // The hubs' key verifies Web PubSub client access tokens. Never generated here (a key of the
  // gateway's own would match no hub's) and optional: unset, such tokens are refused with 401.
  { ...hubKey('Hub:AccessKey'), default: undefined, required: undefined },
];

function hubKey(name: string): KeyDefinition {
  return HUB_KEYS.find((k) => k.key === name)!;
}
