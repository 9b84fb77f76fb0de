import type { Logger } from 'pino';
import type { AppConfig } from './app-config.js';
import { systemClock, type Clock } from '../host/clock.js';
import { HealthChecks } from '../host/health/health-checks.js';
import { mapHealthEndpoints } from '../host/health/health-endpoints.js';
import { createHttpServer } from '../host/http/http-server.js';
import { createOriginResolver } from '../host/http/public-origin.js';
import { HttpServerService } from '../host/http/http-server-service.js';
import { Host } from '../host/lifecycle/host.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { categoryLogger, forwardLogLines } from '../host/logging.js';
import { redactText } from '../host/config/redact-secrets.js';
import type { RequestDelegate } from '../host/pipeline/middleware.js';
import { WebApplication } from '../host/pipeline/web-application.js';
import { createJwtVerifier, type JwtVerifier } from '../security/jwt-bearer.js';
import { SocketIoTransport } from '../transport/socketio/socketio-transport.js';
import { UpgradeGuard } from '../transport/upgrade-guard.js';
import { DASHBOARD_DIR, mapDashboardEndpoints } from './dashboard-endpoints.js';
import { mapDeviceEndpoints } from './devices-endpoints.js';
import { mapOpenApiEndpoints } from './openapi-endpoints.js';
import { createOrderServices, mapBusinessEndpoints, type OrderServices } from './orders-wiring.js';
import { deprecationHeaders } from '../host/openapi/deprecation-headers.js';
import { mapSocketIoEndpoints } from './socketio-endpoints.js';
import { useSecurity } from './security-wiring.js';
import { useCaching } from './cache-wiring.js';
import { wireFirmware } from './firmware-wiring.js';
import type { CacheService } from '../cache/cache-service.js';
import type { FirmwareService } from '../firmware/firmware-service.js';
import { wireServerless } from './serverless-wiring.js';
import { createTelemetryServices, type TelemetryServices } from './telemetry-services.js';
import { createDatabaseService } from './database-wiring.js';
import { createHistory, type History } from './history-wiring.js';
import { mapHistoryEndpoints } from './history-endpoints.js';
import type { Database } from '../db/database.js';
import { wireOpenTelemetry } from './otel-wiring.js';
import type { Telemetry } from '../telemetry/telemetry.js';

export interface Application {
  config: AppConfig;
  /** The one clock every time-driven part runs on (throttle, rate limits, token expiry, health). */
  clock: Clock;
  host: Host;
  web: WebApplication;
  health: HealthChecks;
  server: HttpServerService;
  telemetry: TelemetryServices;
  /** Tenant-scoped units of work (row-level security); open once the host started. */
  database: Database;
  /** Stored readings (`History:Enabled`, default on): the writer and the reader catch-up uses. */
  history: History | undefined;
  /** The queue, outbox relay and worker of the orders API. */
  orders: OrderServices;
  /** OpenTelemetry (`Telemetry:*`): named sources, off unless an exporter is configured. */
  otel: Telemetry;
  /** Verifies user tokens; the same verifier guards HTTP endpoints and socket connections. */
  verifier: JwtVerifier;
  /** Admits every WebSocket handshake, socket.io's and Web PubSub's: per-address rate, pending cap. */
  upgrades: UpgradeGuard;
  /** The output cache's store and the data cache (Redis when configured, else memory). */
  caches: CacheService;
  firmware: FirmwareService;
  /** Hosted services before the server; added to the host in this order when composing ends. */
  services: HostedService[];
}

/**
 * The composition root: every implementation is picked here, from the configuration.
 * `extend` lets the caller (tests, fixtures) add endpoints or services before the host is built;
 * `clock` lets tests move time by hand.
 */
export function composeApplication(config: AppConfig, log: Logger, extend?: (app: Application) => void, clock: Clock = systemClock): Application {
  const host = new Host({ logger: categoryLogger(log, config, 'Host'), shutdownTimeoutMs: config.host.shutdownTimeoutMs });
  const health = new HealthChecks({ timeoutMs: config.health.checkTimeoutMs, clock });
  const otel = wireOpenTelemetry(config, health);
  if (otel.recordsLogs) forwardLogLines(log, (line) => otel.log(line));
  health.add({ name: 'self', tags: ['live'], check: () => ({ status: 'Healthy' }) });
  health.add({
    name: 'host',
    tags: ['ready'],
    check: () => (host.state === 'serving' ? { status: 'Healthy' } : { status: 'Unhealthy', description: `host is ${host.state}` }),
  });

  const verifier = createJwtVerifier({
    ...(config.jwt.jwksUri ? { jwksUri: config.jwt.jwksUri } : { secret: config.jwt.secret! }),
    issuer: config.jwt.issuer,
    audience: config.jwt.audience,
    clockSkewSeconds: config.jwt.clockSkewSeconds,
    now: () => clock.now(),
  });

  const web = new WebApplication({ development: config.isDevelopment });
  useSecurity(web, config, verifier, clock);
  web.use(deprecationHeaders());
  const caches = useCaching(web, config, clock, log);
  mapHealthEndpoints(web.routes, health);

  let pipeline: RequestDelegate | undefined;
  const httpLog = categoryLogger(log, config, 'Http');
  const fastify = createHttpServer({
    // Built below, once every endpoint and middleware is registered.
    app: (ctx) => pipeline!(ctx),
    log: httpLog,
    bodyLimitBytes: config.http.bodyLimitBytes,
    development: config.isDevelopment,
    limits: config.http,
    resolveOrigin: createOriginResolver(config.http),
    // socket.io's engine reads its long-polling bodies itself; firmware uploads are read as they arrive.
    streamedBodyPrefixes: ['/socket.io/', '/v1/firmware/'],
    traceRequest: otel.requestTracer,
  });
  const server = new HttpServerService({ fastify, log: httpLog, port: config.http.port, host: config.http.host });

  // First to start and last to stop: everything that writes through it has stopped before it closes.
  const db = createDatabaseService(config, log);
  health.add(db.healthCheck());
  const history = createHistory(config, log, clock, db.database);
  const telemetry = createTelemetryServices(
    config,
    log,
    host.lifetime,
    clock,
    history && { accepted: (reading) => history.writer.offer(reading), reader: history.reader },
    otel.telemetry,
  );
  health.add({
    name: 'ingestion',
    tags: ['ready'],
    check: () => (telemetry.ingestion.connected ? { status: 'Healthy' } : { status: 'Unhealthy', description: 'ingestion source not connected' }),
  });
  const backplane = telemetry.backplane;
  if (backplane) {
    health.add({
      name: 'redis',
      tags: ['ready'],
      check: async () => {
        const problem = await backplane.healthy();
        return problem === undefined ? { status: 'Healthy' } : { status: 'Unhealthy', description: problem };
      },
    });
  }
  const upgrades = new UpgradeGuard({
    perIpPerSecond: config.http.webSocketUpgradesPerIpPerSecond,
    burstPerIp: config.http.webSocketUpgradeBurstPerIp,
    maxPending: config.http.maxPendingUpgrades,
    clock: () => clock.now(),
  });
  const socketIo = new SocketIoTransport({
    hub: telemetry.hub,
    registry: telemetry.registry,
    catchUp: telemetry.catchUp,
    authenticate: (token) => verifier.verify(token),
    log: categoryLogger(log, config, 'Hub.SocketIo'),
    clock,
    deliveries: telemetry.deliveries.socketio,
  });
  mapSocketIoEndpoints(web.routes, socketIo, upgrades);
  server.onClosing(() => {
    socketIo.close();
    telemetry.hub.closeAll('shutdown');
  });
  mapDeviceEndpoints(web.routes.group('/v1'), telemetry.registry);
  if (history) mapHistoryEndpoints(web.routes.group('/v1'), db.database, () => clock.now());
  const orders = createOrderServices(config, db.database, log, clock, health);
  mapBusinessEndpoints(web.routes, config, db.database, orders.relay);
  mapOpenApiEndpoints(web.routes, web.endpoints, { internal: config.environment !== 'Production' });
  const firmware = wireFirmware(web.routes.group('/v1'), config, caches, clock, db.database);
  const dashboard = mapDashboardEndpoints(web.routes);
  if (dashboard.files === 0) log.warn({ dir: DASHBOARD_DIR }, 'dashboard not built; / answers 404');

  // Telemetry first, so the host stops it last: the spans and metrics of the shutdown leave too.
  const app: Application = { config, clock, host, web, health, server, telemetry, database: db.database, history, orders, verifier, upgrades, caches, firmware, otel: otel.telemetry, services: [otel.telemetry.service, db, caches, ...(history ? [history.service(telemetry.registry)] : []), ...orders.services, ...telemetry.services] };
  wireServerless(app, log);
  extend?.(app);
  pipeline = web.build();
  for (const service of app.services) host.add(service);
  host.add(server);
  host.lifetime.onStarted(() => {
    // What a newcomer needs after `npm start`: where to look and where devices publish (loopback
    // spelled as the name people type; Development listens on 127.0.0.1).
    const base = server.url!.replace('//127.0.0.1:', '//localhost:');
    log.info(
      { instanceId: config.hub.instanceId, dashboard: `${base}/`, mqtt: config.mqtt.url !== undefined ? redactText(config.mqtt.url) : telemetry.broker?.url.replace('127.0.0.1', 'localhost'), health: `${base}/health/ready` },
      'telemetry hub ready',
    );
  });
  return app;
}
