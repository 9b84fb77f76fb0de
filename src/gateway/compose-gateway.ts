import type { Logger } from 'pino';
import { systemClock, type Clock } from '../host/clock.js';
import { HealthChecks } from '../host/health/health-checks.js';
import { mapHealthEndpoints } from '../host/health/health-endpoints.js';
import { createHttpServer } from '../host/http/http-server.js';
import { HttpServerService } from '../host/http/http-server-service.js';
import { createOriginResolver, trustedPeers } from '../host/http/public-origin.js';
import { Host } from '../host/lifecycle/host.js';
import { categoryLogger } from '../host/logging.js';
import type { RequestDelegate } from '../host/pipeline/middleware.js';
import { WebApplication } from '../host/pipeline/web-application.js';
import { deriveSessionSecret } from '../security/cookie.js';
import { createJwtVerifier } from '../security/jwt-bearer.js';
import { PgConnector } from '../db/pg-connector.js';
import { TenantDatabase } from '../db/tenant-database.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { CachedTenantCatalogue } from './cached-tenant-catalogue.js';
import { DatabaseTenantCatalogue } from './database-tenant-catalogue.js';
import type { GatewayConfig } from './gateway-config.js';
import { mapGatewayEndpoint } from './gateway-endpoint.js';
import { InstancePicker } from './instance-picker.js';
import { createRequestTenantResolver } from './request-tenant.js';
import { MemoryTenantCatalogue, type TenantCatalogue } from './tenant-catalogue.js';
import { UpstreamHealth, type ReadinessProbe } from './upstream-health.js';
import { UpstreamProxy } from './upstream-proxy.js';

export interface Gateway {
  host: Host;
  server: HttpServerService;
  upstreams: UpstreamHealth;
}

export interface GatewayOptions {
  /** The tenant catalogue; default: the in-memory one from `Gateway:Tenants`. */
  catalogue?: TenantCatalogue;
  clock?: Clock;
  probe?: ReadinessProbe;
}

/**
 * The gateway on the shared host: the same lifecycle, configuration, logging, health endpoints,
 * problem details and request log as a hub, with one catch-all endpoint that routes by tenant.
 */
export function composeGateway(config: GatewayConfig, log: Logger, options: GatewayOptions = {}): Gateway {
  const clock = options.clock ?? systemClock;
  const g = config.gateway;
  const host = new Host({ logger: categoryLogger(log, config, 'Host'), shutdownTimeoutMs: config.host.shutdownTimeoutMs });
  const health = new HealthChecks({ timeoutMs: config.health.checkTimeoutMs, clock });
  health.add({ name: 'self', tags: ['live'], check: () => ({ status: 'Healthy' }) });
  health.add({ name: 'host', tags: ['ready'], check: () => (host.state === 'serving' ? { status: 'Healthy' } : { status: 'Unhealthy', description: `host is ${host.state}` }) });

  const gatewayLog = categoryLogger(log, config, 'Gateway');
  const upstreams = new UpstreamHealth({ stamps: g.stamps, intervalMs: g.healthIntervalMs, timeoutMs: g.healthTimeoutMs, clock, log: gatewayLog, ...(options.probe ? { probe: options.probe } : {}) });
  const proxy = new UpstreamProxy({ timeoutMs: g.upstreamTimeoutMs, log: gatewayLog, onUnreachable: (target) => upstreams.markDown(target) });
  const database = g.database !== undefined ? openCatalogueDatabase(g.database, gatewayLog) : undefined;
  if (database !== undefined) {
    health.add({ name: 'database', tags: ['ready'], check: async () => (await database.db.withSystem((sql) => sql.query('select 1')), { status: 'Healthy' }) });
  }
  const catalogue = options.catalogue ?? (database !== undefined ? new DatabaseTenantCatalogue(database.db) : new MemoryTenantCatalogue(g.tenants));
  const cached = options.catalogue !== undefined || database !== undefined;
  const verifier = createJwtVerifier({
    ...(config.jwt.jwksUri ? { jwksUri: config.jwt.jwksUri } : { secret: config.jwt.secret! }),
    issuer: config.jwt.issuer,
    audience: config.jwt.audience,
    clockSkewSeconds: config.jwt.clockSkewSeconds,
    now: () => clock.now(),
  });
  // The hubs sign dashboard sessions with the JWT secret, or (JWKS) a secret derived from the access key.
  const sessionSecret = config.jwt.secret ?? (config.accessKey !== undefined ? deriveSessionSecret(config.accessKey) : undefined);

  const web = new WebApplication({ development: config.isDevelopment });
  web.useExceptionHandler();
  web.useRouting();
  mapHealthEndpoints(web.routes, health);
  mapGatewayEndpoint(web.routes, {
    resolveTenant: createRequestTenantResolver({ verifier, accessKey: config.accessKey, sessionSecret, publicBaseUrl: config.http.publicBaseUrl, now: () => clock.now() }),
    catalogue: g.catalogueCacheMs > 0 && cached ? new CachedTenantCatalogue({ inner: catalogue, ttlMs: g.catalogueCacheMs, clock }) : catalogue,
    health: upstreams,
    picker: new InstancePicker(),
    proxy,
    defaultStamp: g.defaultStamp,
    trusted: trustedPeers(config.http.trustedProxies),
    retryAfterSeconds: Math.max(1, Math.ceil(g.healthIntervalMs / 1000)),
  });

  let pipeline: RequestDelegate | undefined;
  const httpLog = categoryLogger(log, config, 'Http');
  const fastify = createHttpServer({
    app: (ctx) => pipeline!(ctx),
    log: httpLog,
    bodyLimitBytes: config.http.bodyLimitBytes,
    development: config.isDevelopment,
    limits: config.http,
    resolveOrigin: createOriginResolver(config.http),
    // Bodies stream through to the instance unread.
    streamedBodyPrefixes: ['/'],
  });
  const server = new HttpServerService({ fastify, log: httpLog, port: config.http.port, host: config.http.host });
  server.onClosing(() => proxy.close());
  pipeline = web.build();
  // First in, last out: the catalogue's database closes after the server has drained.
  if (database !== undefined) host.add(database.service);
  host.add(upstreams);
  host.add(server);
  host.lifetime.onStarted(() => log.info({ url: server.url, stamps: upstreams.snapshot() }, 'gateway ready'));
  return { host, server, upstreams };
}

/**
 * The catalogue's PostgreSQL pool. Start-up does not wait for the server: a gateway whose database
 * is down starts, answers 503 for tenants it has not cached, and its ready check says why.
 */
function openCatalogueDatabase(options: NonNullable<GatewayConfig['gateway']['database']>, log: Logger): { db: TenantDatabase; service: HostedService } {
  const db = new TenantDatabase(new PgConnector({ ...options, log }));
  return { db, service: { name: 'catalogue-database', start: async () => {}, stop: () => db.close() } };
}
