import type { Logger } from 'pino';
import { loadConfig } from './compose/load-app-config.js';
import type { AppConfig } from './compose/app-config.js';
import { registerDatabase } from './compose/database-wiring.js';
import { APP_CONFIG, LOGGER, OTEL } from './compose/app-service-keys.js';
import { registerOrderServices } from './compose/orders-wiring.js';
import { HostedServices } from './compose/hosted-services.js';
import { registerCustomerStores } from './compose/customers-wiring.js';
import { lateScopes, type ServiceProvider } from './host/container/service-provider.js';
import { hostServices } from './compose/host-services.js';
import { systemClock } from './host/clock.js';
import { Host } from './host/lifecycle/host.js';
import { categoryLogger } from './host/logging.js';
import { hostUsage, runMain } from './host/run-main.js';
import { createTelemetry } from './adapters/otel/telemetry-sdk.js';

/**
 * `npm run worker`: the queue worker alone, with the same configuration as the hub (and the outbox
 * relay unless `Outbox:Relay=false`). The database service starts first and refuses a schema older
 * than this code, so the worker never consumes before the migrations. It needs the shared services:
 * RabbitMQ (the in-process queue lives inside one hub) and PostgreSQL (the embedded database is one
 * process's).
 */
export function composeWorker(config: AppConfig, log: Logger): { host: Host } {
  if (config.orders.rabbitMqUrl === undefined || config.database.connectionString === undefined) {
    throw new Error(
      'npm run worker needs ConnectionStrings:rabbitmq and ConnectionStrings:postgres (the in-process queue and the embedded database belong to one hub process)',
    );
  }
  const host = new Host({
    logger: categoryLogger(log, config, 'Host'),
    shutdownTimeoutMs: config.host.shutdownTimeoutMs,
  });
  // Its spans (a consumer span per message, the statements it runs) join the trace of the request
  // that changed the order; first in, last out, so the spans of the shutdown leave too.
  const telemetry = createTelemetry(config.telemetry, {
    instanceId: config.hub.instanceId,
    log: categoryLogger(log, config, 'Telemetry'),
  });
  const registrations = hostServices().instance(APP_CONFIG, config).instance(LOGGER, log).instance(OTEL, telemetry);
  const hosted = new HostedServices(registrations).made(telemetry.service);
  registerDatabase(registrations, hosted);
  // The worker reads the fulfilment context's delivery addresses.
  registerCustomerStores(registrations);
  // A scope per message: the message's tenant context comes from it.
  let container: ServiceProvider | undefined;
  registerOrderServices(
    registrations,
    hosted,
    { ...config, orders: { ...config.orders, workerEnabled: true } },
    log,
    systemClock,
    undefined,
    telemetry,
    lateScopes(() => container),
  );
  hosted.seal();
  const built = registrations.build();
  container = built;
  hosted.addTo(host, built);
  host.add({ name: 'services', start: async () => {}, stop: () => built.dispose() });
  host.lifetime.onStarted(() =>
    log.info({ queue: config.orders.queueName, prefetch: config.orders.prefetch }, 'worker ready'),
  );
  return { host };
}

const usage = hostUsage(
  'npm run worker --',
  'The queue worker alone (and the outbox relay unless Outbox:Relay=false); needs\nConnectionStrings:rabbitmq and ConnectionStrings:postgres.',
);
await runMain({ name: 'worker', usage }, loadConfig, composeWorker);
