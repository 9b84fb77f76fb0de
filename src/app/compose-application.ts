import type { Logger } from 'pino';
import type { AppConfig } from '../host/config/app-config.js';
import { HealthChecks } from '../host/health/health-checks.js';
import { mapHealthEndpoints } from '../host/health/health-endpoints.js';
import { createHttpServer } from '../host/http/http-server.js';
import { HttpServerService } from '../host/http/http-server-service.js';
import { Host } from '../host/lifecycle/host.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { categoryLogger } from '../host/logging.js';
import type { RequestDelegate } from '../host/pipeline/middleware.js';
import { WebApplication } from '../host/pipeline/web-application.js';

export interface Application {
  config: AppConfig;
  host: Host;
  web: WebApplication;
  health: HealthChecks;
  server: HttpServerService;
  /** Hosted services before the server; `build` adds them to the host in this order. */
  services: HostedService[];
}

/**
 * The composition root: every implementation is picked here, from the configuration.
 * `extend` lets the caller (tests, fixtures) add endpoints or services before the host is built.
 */
export function composeApplication(config: AppConfig, log: Logger, extend?: (app: Application) => void): Application {
  const host = new Host({ logger: categoryLogger(log, config, 'Host'), shutdownTimeoutMs: config.host.shutdownTimeoutMs });
  const health = new HealthChecks({ timeoutMs: config.health.checkTimeoutMs });
  health.add({ name: 'self', tags: ['live'], check: () => ({ status: 'Healthy' }) });
  health.add({
    name: 'host',
    tags: ['ready'],
    check: () => (host.state === 'serving' ? { status: 'Healthy' } : { status: 'Unhealthy', description: `host is ${host.state}` }),
  });

  const web = new WebApplication({ development: config.isDevelopment });
  web.useExceptionHandler();
  web.useRouting();
  mapHealthEndpoints(web.routes, health);

  let pipeline: RequestDelegate | undefined;
  const fastify = createHttpServer({
    // Built below, once every endpoint and middleware is registered.
    app: (ctx) => pipeline!(ctx),
    log: categoryLogger(log, config, 'Http'),
    bodyLimitBytes: config.http.bodyLimitBytes,
    development: config.isDevelopment,
    foreignUpgradePrefixes: ['/socket.io/'],
  });
  const server = new HttpServerService({ fastify, log: categoryLogger(log, config, 'Http'), port: config.http.port, host: config.http.host });
  const app: Application = { config, host, web, health, server, services: [] };
  extend?.(app);
  pipeline = web.build();
  for (const service of app.services) host.add(service);
  host.add(server);
  return app;
}
