import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { Clock } from '../host/clock.js';
import type { HealthChecks } from '../host/health/health-checks.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { categoryLogger } from '../host/logging.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { FulfilmentWorker } from '../orders/fulfilment-worker.js';
import { OrderStore } from '../orders/order-store.js';
import { OutboxRelay } from '../outbox/outbox-relay.js';
import { ProfileStore } from '../profile/profile-store.js';
import { MemoryBroker } from '../queue/memory-queue.js';
import type { MessageQueue } from '../queue/message-queue.js';
import { RabbitMqQueue } from '../queue/rabbitmq-queue.js';
import type { AppConfig } from './app-config.js';
import { mapOrderEndpoints } from './orders-endpoints.js';
import { mapProfileEndpoints } from './profile-endpoints.js';

export interface OrderServices {
  readonly queue: MessageQueue;
  readonly relay: OutboxRelay | undefined;
  readonly worker: FulfilmentWorker | undefined;
  /** In start order, after the database: queue (closed last), relay, worker. */
  readonly services: HostedService[];
}

/** The queue from the configuration: RabbitMQ when `ConnectionStrings:rabbitmq` is set, else in-process. */
export function createQueue(config: AppConfig, log: Logger): MessageQueue {
  const { orders } = config;
  const options = { name: orders.queueName, maxAttempts: orders.maxAttempts };
  return orders.rabbitMqUrl !== undefined ? new RabbitMqQueue(orders.rabbitMqUrl, options, categoryLogger(log, config, 'Queue')) : new MemoryBroker().connect(options);
}

/**
 * The queue, the outbox relay and the worker as hosted services. They are added after the database
 * service, which starts first and refuses a schema older than this code (or migrates the embedded
 * one), so neither publishes nor consumes before the migrations; they stop before it closes.
 */
export function createOrderServices(config: AppConfig, db: Database, log: Logger, clock: Clock, health: HealthChecks | undefined): OrderServices {
  const { orders } = config;
  const queue = createQueue(config, log);
  const services: HostedService[] = [
    // Started first among these and stopped last: the relay and the worker are done with it by then.
    { name: 'queue', start: async () => {}, stop: () => queue.close() },
  ];
  if (orders.rabbitMqUrl !== undefined && health) {
    health.add({
      name: 'broker',
      tags: ['ready'],
      check: async () => {
        const problem = await queue.healthy();
        return problem === undefined ? { status: 'Healthy' } : { status: 'Unhealthy', description: problem };
      },
    });
  }
  const relay = orders.relayEnabled
    ? new OutboxRelay({ db, queue, log: categoryLogger(log, config, 'Outbox'), clock, pollMs: orders.outboxPollMs, batch: 100, claimSeconds: 30 })
    : undefined;
  const worker = orders.workerEnabled ? new FulfilmentWorker({ db, queue, prefetch: orders.prefetch, log: categoryLogger(log, config, 'Worker'), clock }) : undefined;
  if (relay) services.push(relay);
  if (worker) services.push(worker);
  return { queue, relay, worker, services };
}

/** The orders and profile endpoints (`/api/orders…`, `/v1/orders…`, `/v1/profile`). */
export function mapBusinessEndpoints(routes: EndpointGroup, config: AppConfig, db: Database, relay: OutboxRelay | undefined): void {
  const v1 = routes.group('/v1');
  mapOrderEndpoints(routes.group('/api'), v1, new OrderStore(db), () => relay?.kick());
  mapProfileEndpoints(v1, new ProfileStore(db), { requireIfMatch: config.orders.requireIfMatch });
}
