import type { Logger } from 'pino';
import { systemClock, type Clock } from '../host/clock.js';
import { HealthChecks } from '../host/health/health-checks.js';
import { mapHealthEndpoints } from '../host/health/health-endpoints.js';
import { createHttpServer } from '../host/http/http-server.js';
import { HttpServerService } from '../host/http/http-server-service.js';
import { createEdgeIdentity } from '../host/edge/edge-identity.js';
import { Host } from '../host/lifecycle/host.js';
import { categoryLogger, forwardLogLines } from '../host/logging.js';
import type { RequestDelegate } from '../host/pipeline/middleware.js';
import { WebApplication } from '../host/pipeline/web-application.js';
import { deriveSessionSecret } from '../host/security/cookie.js';
import { createJwtVerifier } from '../host/security/jwt-bearer.js';
import { PgConnector } from '../adapters/postgres/pg-connector.js';
import { TenantDatabase } from '../features/storage/tenant-database.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { CachedTenantCatalogue } from '../features/gateway/cached-tenant-catalogue.js';
import { DatabaseTenantCatalogue } from '../features/gateway/database-tenant-catalogue.js';
import type { GatewayConfig } from './gateway-config.js';
import { mapGatewayEndpoint } from '../features/gateway/gateway-endpoint.js';
import { InstancePicker } from '../features/gateway/instance-picker.js';
import { createRequestTenantResolver } from '../features/gateway/request-tenant.js';
import type { TenantCatalogue } from '../features/gateway/tenant-catalogue.js';
import { MemoryTenantCatalogue } from '../adapters/memory/memory-tenant-catalogue.js';
import { UpstreamHealth, type ReadinessProbe } from '../features/gateway/upstream-health.js';
import { UpstreamProxy } from '../adapters/proxy/upstream-proxy.js';
import { hostname } from 'node:os';
import { externalApiCheck, type OptionalDependency } from '../host/health/external-api-check.js';
import { Sources } from '../adapters/otel/source-names.js';
import { optionalDependencies } from './optional-dependencies.js';
import { wireOpenTelemetry } from './otel-wiring.js';
import { ServiceCollection } from '../host/container/service-collection.js';
import { HostedServices } from './hosted-services.js';

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
  const host = new Host({
    logger: categoryLogger(log, config, 'Host'),
    shutdownTimeoutMs: config.host.shutdownTimeoutMs,
  });
  const health = new HealthChecks({ timeoutMs: config.health.checkTimeoutMs, clock });
  health.add({ name: 'self', tags: ['live'], check: () => ({ status: 'Healthy' }) });
  health.add({
    name: 'host',
    tags: ['ready'],
    check: () =>
      host.state === 'serving' ? { status: 'Healthy' } : { status: 'Unhealthy', description: `host is ${host.state}` },
  });
  const otel = wireOpenTelemetry(config, `gateway-${hostname()}-${process.pid}`, health, log);
  if (otel.recordsLogs) forwardLogLines(log, (line) => otel.log(line));

  const gatewayLog = categoryLogger(log, config, 'Gateway');
  const upstreams = new UpstreamHealth({
    stamps: g.stamps,
    intervalMs: g.healthIntervalMs,
    timeoutMs: g.healthTimeoutMs,
    clock,
    log: gatewayLog,
    ...(options.probe ? { probe: options.probe } : {}),
  });
  // A stamp with no ready instance fails only its own tenants: the gateway serves the others.
  health.add(
    externalApiCheck(
      [...stampDependencies(upstreams), ...optionalDependencies(config.telemetry)],
      config.health.checkTimeoutMs,
    ),
  );
  const proxy = new UpstreamProxy({
    timeoutMs: g.upstreamTimeoutMs,
    log: gatewayLog,
    onUnreachable: (target) => upstreams.markDown(target),
  });
  const database = g.database !== undefined ? openCatalogueDatabase(g.database, gatewayLog) : undefined;
  if (database !== undefined) {
    health.add({
      name: 'database',
      tags: ['ready'],
      check: async () => (await database.db.withSystem((sql) => sql.query('select 1')), { status: 'Healthy' }),
    });
  }
  const catalogue =
    options.catalogue ??
    (database !== undefined ? new DatabaseTenantCatalogue(database.db) : new MemoryTenantCatalogue(g.tenants));
  const cached = options.catalogue !== undefined || database !== undefined;
  const verifier = createJwtVerifier({
    ...(config.jwt.jwksUri ? { jwksUri: config.jwt.jwksUri } : { secret: config.jwt.secret! }),
    issuer: config.jwt.issuer,
    audience: config.jwt.audience,
    clockSkewSeconds: config.jwt.clockSkewSeconds,
    now: () => clock.now(),
  });
  // The hubs sign dashboard sessions with the JWT secret, or (JWKS) a secret derived from the access key.
  const sessionSecret =
    config.jwt.secret ?? (config.accessKey !== undefined ? deriveSessionSecret(config.accessKey) : undefined);

  const edge = createEdgeIdentity(config.http);
  const web = new WebApplication({ development: config.isDevelopment });
  web.useExceptionHandler();
  web.useRouting();
  mapHealthEndpoints(web.routes, health);
  mapGatewayEndpoint(web.routes, {
    resolveTenant: createRequestTenantResolver({
      verifier,
      accessKey: config.accessKey,
      sessionSecret,
      edge,
      now: () => clock.now(),
    }),
    catalogue:
      g.catalogueCacheMs > 0 && cached
        ? new CachedTenantCatalogue({ inner: catalogue, ttlMs: g.catalogueCacheMs, clock })
        : catalogue,
    health: upstreams,
    picker: new InstancePicker(),
    proxy,
    defaultStamp: g.defaultStamp,
    edge,
    retryAfterSeconds: Math.max(1, Math.ceil(g.healthIntervalMs / 1000)),
    spans: otel.telemetry.source(Sources.gateway)?.startSpan,
  });

  let pipeline: RequestDelegate | undefined;
  const httpLog = categoryLogger(log, config, 'Http');
  const fastify = createHttpServer({
    app: (ctx) => pipeline!(ctx),
    log: httpLog,
    bodyLimitBytes: config.http.bodyLimitBytes,
    development: config.isDevelopment,
    limits: config.http,
    edge,
    // Bodies stream through to the instance unread.
    streamedBodyPrefixes: ['/'],
    traceRequest: otel.requestTracer,
  });
  const server = new HttpServerService({ fastify, log: httpLog, port: config.http.port, host: config.http.host });
  server.onClosing(() => proxy.close());
  pipeline = web.build();
  // First in, last out: the catalogue's database closes after the server has drained.
  const registrations = new ServiceCollection();
  const hosted = new HostedServices(registrations).made(otel.telemetry.service);
  if (database !== undefined) hosted.made(database.service);
  hosted.made(upstreams).seal();
  hosted.addTo(host, registrations.build());
  host.add(server);
  host.lifetime.onStarted(() => log.info({ url: server.url, stamps: upstreams.snapshot() }, 'gateway ready'));
  return { host, server, upstreams };
}

/**
 * The catalogue's PostgreSQL pool. Start-up does not wait for the server: a gateway whose database
 * is down starts, answers 503 for tenants it has not cached, and its ready check says why.
 */
function openCatalogueDatabase(
  options: NonNullable<GatewayConfig['gateway']['database']>,
  log: Logger,
): { db: TenantDatabase; service: HostedService } {
  const db = new TenantDatabase(new PgConnector({ ...options, log }));
  return { db, service: { name: 'catalogue-database', start: async () => {}, stop: () => db.close() } };
}

/** Each stamp, as the gateway sees it: there while at least one of its instances answers ready. */
function stampDependencies(upstreams: UpstreamHealth): OptionalDependency[] {
  const stamps = [...new Set(upstreams.snapshot().map((i) => i.stamp))];
  return stamps.map((stamp) => ({
    name: `stamp ${stamp}`,
    probe: async () => {
      const instances = upstreams.snapshot().filter((i) => i.stamp === stamp);
      return instances.some((i) => i.ready)
        ? undefined
        : `no ready instance (${instances.map((i) => i.instance).join(', ')})`;
    },
  }));
}
