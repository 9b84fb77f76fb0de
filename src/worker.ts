import type { Logger } from 'pino';
import { loadConfig } from './app/load-app-config.js';
import type { AppConfig } from './app/app-config.js';
import { createDatabaseService } from './app/database-wiring.js';
import { createOrderServices } from './app/orders-wiring.js';
import { systemClock } from './host/clock.js';
import { Host } from './host/lifecycle/host.js';
import { categoryLogger } from './host/logging.js';
import { runMain } from './host/run-main.js';

/**
 * `npm run worker`: the queue worker alone, with the same configuration as the hub (and the outbox
 * relay unless `Outbox:Relay=false`). The database service starts first and refuses a schema older
 * than this code, so the worker never consumes before the migrations. It needs the shared services:
 * RabbitMQ (the in-process queue lives inside one hub) and PostgreSQL (the embedded database is one
 * process's).
 */
export function composeWorker(config: AppConfig, log: Logger): { host: Host } {
  if (config.orders.rabbitMqUrl === undefined || config.database.connectionString === undefined) {
    throw new Error('npm run worker needs ConnectionStrings:rabbitmq and ConnectionStrings:postgres (the in-process queue and the embedded database belong to one hub process)');
  }
  const host = new Host({ logger: categoryLogger(log, config, 'Host'), shutdownTimeoutMs: config.host.shutdownTimeoutMs });
  const db = createDatabaseService(config, log);
  const orders = createOrderServices({ ...config, orders: { ...config.orders, workerEnabled: true } }, db.database, log, systemClock, undefined);
  host.add(db);
  for (const service of orders.services) host.add(service);
  host.lifetime.onStarted(() => log.info({ queue: config.orders.queueName, prefetch: config.orders.prefetch }, 'worker ready'));
  return { host };
}

await runMain(loadConfig, composeWorker);
