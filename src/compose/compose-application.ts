import type { Logger } from 'pino';
import type { AppConfig } from './app-config.js';
import { systemClock, type Clock } from '../host/clock.js';
import { HealthChecks } from '../host/health/health-checks.js';
import { externalApiCheck } from '../host/health/external-api-check.js';
import { optionalDependencies } from './optional-dependencies.js';
import { traceRedisCommands } from '../adapters/redis/redis-connection.js';
import { mapHealthEndpoints } from '../host/health/health-endpoints.js';
import { createHttpServer } from '../host/http/http-server.js';
import { createEdgeIdentity } from '../host/edge/edge-identity.js';
import { HttpServerService } from '../host/http/http-server-service.js';
import { Host } from '../host/lifecycle/host.js';
import { categoryLogger, forwardLogLines } from '../host/logging.js';
import { redactText } from '../host/config/redact-secrets.js';
import type { RequestDelegate } from '../host/pipeline/middleware.js';
import { WebApplication } from '../host/pipeline/web-application.js';
import { DASHBOARD_DIR, mapDashboardEndpoints } from '../features/dashboard/dashboard-endpoints.js';
import { mapDeviceEndpoints } from '../features/devices/devices-endpoints.js';
import { internalApiAccess, mapOpenApiEndpoints } from '../features/api-docs/openapi-endpoints.js';
import { mapBusinessEndpoints, registerOrderServices } from './orders-wiring.js';
import { mapCustomerEndpoints } from '../features/customers/customers-endpoints.js';
import { registerCustomerStores } from './customers-wiring.js';
import { deprecationHeaders } from '../host/openapi/deprecation-headers.js';
import type { Application } from './application.js';
import { mapHistoryEndpoints } from '../features/history/history-endpoints.js';
import { wireOpenTelemetry } from './otel-wiring.js';
import { hostServices } from './host-services.js';
import { HostedServices } from './hosted-services.js';
import { DATABASE } from '../features/storage/database.js';
import { lateScopes, type ServiceProvider } from '../host/container/service-provider.js';
import { Sources } from '../adapters/otel/source-names.js';
import type { JwtVerifier } from '../host/security/jwt-bearer.js';
import type { ServiceKey } from '../host/container/service-key.js';
import { registerSecurity, useSecurity } from './security-wiring.js';
import { registerCaches, useCaching } from './cache-wiring.js';
import { mapFirmware, registerFirmware } from './firmware-wiring.js';
import { mapServerless, registerServerless } from './serverless-wiring.js';
import { TELEMETRY, registerTelemetry } from './telemetry-services.js';
import { registerDatabase } from './database-wiring.js';
import { HISTORY, registerHistory } from './history-wiring.js';
import { mapSocketIo, registerSocketIo } from './socketio-wiring.js';
import {
  APP_CONFIG,
  APPLICATION_LIFETIME,
  CACHES,
  CLOCK,
  DATABASE_SERVICE,
  EDGE_IDENTITY,
  FIRMWARE,
  LOGGER,
  OTEL,
  TOKEN_VERIFIER,
  UPGRADE_GUARD,
} from './app-service-keys.js';

/**
 * The composition root: every implementation is picked here, from the configuration, and made by
 * the container. `extend` lets the caller (tests, fixtures) add registrations, hosted services,
 * endpoints or middleware before the container is built (so it cannot read `app.telemetry` and the
 * other parts yet: read them in a handler); `clock` lets tests move time by hand.
 */
export function composeApplication(
  config: AppConfig,
  log: Logger,
  extend?: (app: Application) => void,
  clock: Clock = systemClock,
): Application {
  const host = new Host({
    logger: categoryLogger(log, config, 'Host'),
    shutdownTimeoutMs: config.host.shutdownTimeoutMs,
  });
  const health = new HealthChecks({ timeoutMs: config.health.checkTimeoutMs, clock });
  const otel = wireOpenTelemetry(config, config.hub.instanceId, health, log);
  traceRedisCommands(otel.telemetry.source(Sources.redis)?.startSpan);
  if (otel.recordsLogs) forwardLogLines(log, (line) => otel.log(line));
  health.add({ name: 'self', tags: ['live'], check: () => ({ status: 'Healthy' }) });
  health.add({
    name: 'host',
    tags: ['ready'],
    check: () =>
      host.state === 'serving' ? { status: 'Healthy' } : { status: 'Unhealthy', description: `host is ${host.state}` },
  });
  const optional = optionalDependencies(config.telemetry);
  if (optional.length > 0) health.add(externalApiCheck(optional, config.health.checkTimeoutMs));

  // Every area registers its services here, its hosted services in start order; `extend` may add
  // to them; then the container is built (and checked) and the areas' endpoints are mapped on what
  // it made. The HTTP server and the pipeline's layout come first: they are the host, not areas.
  const registrations = hostServices();
  const hosted = new HostedServices(registrations);
  let container: ServiceProvider | undefined;
  let pipeline: RequestDelegate | undefined;
  // What the areas' parts are read through, here and in the Application's views: only once built.
  // Kept once resolved: they are singletons, and a stopped hub's parts (its counters, say) stay
  // readable after the container was disposed.
  const resolved = new Map<string, unknown>();
  const built = <T>(key: ServiceKey<T>): T => {
    if (resolved.has(key.name)) return resolved.get(key.name) as T;
    if (container === undefined) throw new Error(`'${key.name}' is made by the container, built after extend`);
    const value = container.resolve(key);
    resolved.set(key.name, value);
    return value;
  };
  const scopes = lateScopes(() => container);

  const edge = createEdgeIdentity(config.http);
  const web = new WebApplication({ development: config.isDevelopment });
  // Authentication is laid out now and verifies with the container's verifier once requests arrive.
  const verifier: JwtVerifier = { verify: (token) => built(TOKEN_VERIFIER).verify(token) };
  const { cookieSecret, corsPolicies } = useSecurity(web, config, verifier, clock);
  web.use(deprecationHeaders());
  useCaching(web, clock, () => built(CACHES));
  mapHealthEndpoints(web.routes, health);

  const httpLog = categoryLogger(log, config, 'Http');
  const fastify = createHttpServer({
    // Built below, once every endpoint and middleware is registered.
    app: (ctx) => pipeline!(ctx),
    log: httpLog,
    bodyLimitBytes: config.http.bodyLimitBytes,
    development: config.isDevelopment,
    limits: config.http,
    edge,
    // socket.io's engine reads its long-polling bodies itself; firmware uploads are read as they arrive.
    streamedBodyPrefixes: ['/socket.io/', '/v1/firmware/'],
    traceRequest: otel.requestTracer,
    services: () => container,
  });
  const server = new HttpServerService({ fastify, log: httpLog, port: config.http.port, host: config.http.host });

  // Made before the container, which the host and its HTTP server run: registered as made.
  registrations
    .instance(APP_CONFIG, config)
    .instance(LOGGER, log)
    .instance(CLOCK, clock)
    .instance(APPLICATION_LIFETIME, host.lifetime)
    .instance(OTEL, otel.telemetry)
    .instance(EDGE_IDENTITY, edge);
  registerSecurity(registrations);
  // Telemetry first, so the host stops it last: the spans and metrics of the shutdown leave too.
  hosted.made(otel.telemetry.service);
  // First area to start and last to stop: everything that writes through it has stopped before it closes.
  registerDatabase(registrations, hosted);
  health.add({
    name: 'database',
    tags: ['ready'],
    check: (signal) => built(DATABASE_SERVICE).healthCheck().check(signal),
  });
  registerCaches(hosted);
  registerHistory(registrations, hosted, config);
  registerOrderServices(registrations, hosted, config, log, clock, health, otel.telemetry, scopes);
  registerTelemetry(registrations, hosted);
  health.add({
    name: 'ingestion',
    tags: ['ready'],
    check: () =>
      built(TELEMETRY).ingestion.connected
        ? { status: 'Healthy' }
        : { status: 'Unhealthy', description: 'ingestion source not connected' },
  });
  if (config.redisUrl) {
    health.add({
      name: 'redis',
      tags: ['ready'],
      check: async () => {
        const problem = await built(TELEMETRY).backplane!.healthy();
        return problem === undefined ? { status: 'Healthy' } : { status: 'Unhealthy', description: problem };
      },
    });
  }
  registerSocketIo(registrations, cookieSecret, scopes);
  registerServerless(registrations, scopes);
  registerFirmware(registrations);
  mapBusinessEndpoints(web.routes, registrations, config);
  registerCustomerStores(registrations);
  mapCustomerEndpoints(web.routes.group('/v1'));

  // Views onto what the container made: readable once it is built (not yet inside `extend`).
  const app: Application = {
    config,
    clock,
    host,
    web,
    health,
    server,
    get telemetry() {
      return built(TELEMETRY);
    },
    get database() {
      return built(DATABASE);
    },
    get history() {
      return built(HISTORY);
    },
    edge,
    get verifier() {
      return built(TOKEN_VERIFIER);
    },
    get upgrades() {
      return built(UPGRADE_GUARD);
    },
    get caches() {
      return built(CACHES);
    },
    get firmware() {
      return built(FIRMWARE);
    },
    otel: otel.telemetry,
    registrations,
    hosted,
  };
  extend?.(app);
  // A registration that cannot work stops start-up here (exit 78), naming the services.
  hosted.seal();
  container = app.container = registrations.build();
  hosted.addTo(host, container);

  mapSocketIo(web.routes, server, container);
  const telemetry = app.telemetry;
  const v1 = web.routes.group('/v1');
  mapDeviceEndpoints(
    v1,
    telemetry.registry,
    telemetry.lastValues && ((tenantId) => telemetry.lastValues!.refreshTenant(tenantId)),
  );
  if (app.history) mapHistoryEndpoints(v1, app.database, () => clock.now());
  mapServerless(app, container, log);
  mapFirmware(v1, config, app.firmware);
  mapOpenApiEndpoints(web.routes, web.endpoints, { internal: internalApiAccess(config.environment) });
  // Source maps only where someone debugs: in Production they would publish the dashboard's sources.
  const dashboard = mapDashboardEndpoints(web.routes, { sourceMaps: config.environment === 'Development' });
  if (dashboard.files === 0) log.warn({ dir: DASHBOARD_DIR }, 'dashboard not built; / answers 404');
  // An endpoint naming an unregistered CORS policy stops start-up here, not at its first request.
  corsPolicies.check(web.endpoints);
  pipeline = web.build();
  // Stops right after the server has drained the last request, before the services singletons use.
  const provider = container;
  host.add({ name: 'services', start: async () => {}, stop: () => provider.dispose() });
  host.add(server);
  if (!config.isDevelopment && config.http.publicBaseUrl === undefined) {
    // Negotiate and the token audiences then follow each request's (validated) Host header: fine
    // behind a proxy that sets it, but an operator should choose that, not inherit it.
    log.warn(
      { configKey: 'Http:PublicBaseUrl' },
      'Http:PublicBaseUrl is not set: the URLs this hub hands out (negotiate) follow the Host header of each request',
    );
  }
  host.lifetime.onStarted(() => {
    // What a newcomer needs after `npm start`: where to look and where devices publish (loopback
    // spelled as the name people type; Development listens on 127.0.0.1).
    const base = server.url!.replace('//127.0.0.1:', '//localhost:');
    log.info(
      {
        instanceId: config.hub.instanceId,
        dashboard: `${base}/`,
        mqtt:
          config.mqtt.url !== undefined
            ? redactText(config.mqtt.url)
            : telemetry.broker?.url.replace('127.0.0.1', 'localhost'),
        health: `${base}/health/ready`,
      },
      'telemetry hub ready',
    );
  });
  return app;
}
