import type { Logger } from 'pino';
import { DATABASE } from '../features/storage/database.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import type { ScopeFactory } from '../host/container/service-scope.js';
import { TENANT_CONTEXT } from '../host/security/tenant-scope.js';
import {
  ORDER_COMMITTED,
  ORDER_STORE,
  ORDERS_CONTROLLER,
  OrdersController,
} from '../features/orders/orders-controller.js';
import type { Clock } from '../host/clock.js';
import type { HealthChecks } from '../host/health/health-checks.js';
import type { HostedService } from '../host/lifecycle/hosted-service.js';
import { categoryLogger } from '../host/logging.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import { FULFILMENT_WORKER, FulfilmentWorker } from '../features/orders/fulfilment-worker.js';
import { DELIVERY_ADDRESSES } from '../features/customers/fulfilment/delivery-addresses.js';
import { OrderStore } from '../features/orders/order-store.js';
import { OUTBOX_RELAY, OutboxRelay } from '../features/outbox/outbox-relay.js';
import { PROFILE_STORE, ProfileStore } from '../features/profile/profile-store.js';
import { MemoryBroker } from '../adapters/memory/memory-broker.js';
import { MESSAGE_QUEUE, type MessageQueue } from '../features/outbox/message-queue.js';
import { serviceKey } from '../host/container/service-key.js';
import type { HostedServices } from './hosted-services.js';
import { RabbitMqQueue } from '../adapters/rabbitmq/rabbitmq-queue.js';
import type { AppConfig } from './app-config.js';
import { mapOrderEndpoints } from '../features/orders/orders-endpoints.js';
import { traceQueue } from '../adapters/otel/queue-telemetry.js';
import { Sources } from '../adapters/otel/source-names.js';
import { Telemetry } from '../adapters/otel/telemetry.js';
import { mapProfileEndpoints } from '../features/profile/profile-endpoints.js';

/** The queue from the configuration: RabbitMQ when `ConnectionStrings:rabbitmq` is set, else in-process. */
export function createQueue(config: AppConfig, log: Logger): MessageQueue {
  const { orders } = config;
  const options = { name: orders.queueName, maxAttempts: orders.maxAttempts };
  return orders.rabbitMqUrl !== undefined
    ? new RabbitMqQueue(orders.rabbitMqUrl, options, categoryLogger(log, config, 'Queue'))
    : new MemoryBroker().connect(options);
}

const QUEUE_SERVICE = serviceKey<HostedService>('queueService');

/**
 * The queue, the outbox relay and the worker, registered in the container; the relay and the worker
 * as hosted services after the database service, which starts first and refuses a schema older
 * than this code (or migrates the embedded one), so neither publishes nor consumes before the
 * migrations; they stop before it closes. The relay's kick is what a committed order calls.
 */
export function registerOrderServices(
  registrations: ServiceCollection,
  hosted: HostedServices,
  config: AppConfig,
  log: Logger,
  clock: Clock,
  health: HealthChecks | undefined,
  otel: Telemetry = Telemetry.off,
  scopes?: ScopeFactory,
): void {
  const { orders } = config;
  registrations.singleton(MESSAGE_QUEUE, [], () => {
    const plain = createQueue(config, log);
    const queueSource = otel.source(Sources.queue);
    const queue = queueSource
      ? traceQueue(plain, queueSource, {
          system: orders.rabbitMqUrl !== undefined ? 'rabbitmq' : 'memory',
          destination: orders.queueName,
        })
      : plain;
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
    return queue;
  });
  // Started first among these and stopped last: the relay and the worker are done with it by then.
  hosted.add(QUEUE_SERVICE, [MESSAGE_QUEUE], (queue) => ({
    name: 'queue',
    start: async () => {},
    stop: () => queue.close(),
  }));
  if (orders.relayEnabled) {
    hosted.add(
      OUTBOX_RELAY,
      [DATABASE, MESSAGE_QUEUE],
      (db, queue) =>
        new OutboxRelay({
          db,
          queue,
          log: categoryLogger(log, config, 'Outbox'),
          clock,
          pollMs: orders.outboxPollMs,
          batch: 100,
          claimSeconds: 30,
        }),
    );
    registrations.singleton(ORDER_COMMITTED, [OUTBOX_RELAY], (relay) => () => relay.kick());
  } else {
    registrations.instance(ORDER_COMMITTED, () => undefined);
  }
  if (orders.workerEnabled) {
    hosted.add(
      FULFILMENT_WORKER,
      [DATABASE, MESSAGE_QUEUE, DELIVERY_ADDRESSES],
      (db, queue, addresses) =>
        new FulfilmentWorker({
          db,
          queue,
          prefetch: orders.prefetch,
          log: categoryLogger(log, config, 'Worker'),
          clock,
          addresses,
          scopes,
        }),
    );
  }
}

/**
 * The orders and profile endpoints (`/api/orders…`, `/v1/orders…`, `/v1/profile`). Both resolve
 * what they use from the request's services: the orders controller, created per request with the
 * request's tenant context, and the profile store.
 */
export function mapBusinessEndpoints(routes: EndpointGroup, services: ServiceCollection, config: AppConfig): void {
  services
    .singleton(ORDER_STORE, [DATABASE], (database) => new OrderStore(database))
    .transient(
      ORDERS_CONTROLLER,
      [ORDER_STORE, TENANT_CONTEXT, ORDER_COMMITTED],
      (store, tenant, committed) => new OrdersController(store, tenant, committed),
    )
    .singleton(PROFILE_STORE, [DATABASE], (database) => new ProfileStore(database));
  const v1 = routes.group('/v1');
  mapOrderEndpoints(routes.group('/api'), v1);
  mapProfileEndpoints(v1, { requireIfMatch: config.orders.requireIfMatch });
}
