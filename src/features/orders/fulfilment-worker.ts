import type { Logger } from 'pino';
import type { Database } from '../storage/database.js';
import type { Clock } from '../../host/clock.js';
import { BackgroundService } from '../../host/lifecycle/hosted-service.js';
import { Backoff } from '../../host/backoff.js';
import type { Consumer, Delivery, MessageQueue } from '../outbox/message-queue.js';
import { runWithTenant, tenantFromHeaders } from '../../host/security/tenant-context.js';
import { serviceKey } from '../../host/container/service-key.js';
import { scopeValue, type ScopeFactory, type ServiceScope } from '../../host/container/service-scope.js';
import { TENANT_CONTEXT } from '../../host/security/tenant-scope.js';
import { isValidId } from '../../host/ids.js';
import type { OrderState } from './order.js';
import type { DeliveryAddresses } from '../customers/fulfilment/delivery-addresses.js';
import type { DeliveryAddress } from '../customers/fulfilment/delivery-address.js';
import { whenAborted } from '../../host/lifecycle/when-aborted.js';

/** The message an accepted order change publishes (outbox body). */
export interface OrderChanged {
  readonly type: 'order.changed';
  readonly order: OrderState;
}

/**
 * The background worker: consumes order changes with manual acks and a prefetch limit, takes its
 * tenant from the message header `tenant_id` before the handler runs (never from the body), and
 * records a fulfilment row under that tenant. Idempotent: the row is keyed by the message id, so a
 * redelivered or republished message writes nothing new. A message it cannot handle (no valid tenant,
 * a body it does not understand) fails every attempt and ends in the dead-letter queue.
 *
 * A confirmed order is fulfilled: the worker asks the fulfilment context for the delivery address of
 * the order's customer (by id, the only thing an order knows of it) and copies it into the row, so
 * the order ships where the customer lived then. With no address on file the row is recorded as
 * held (`delivery = 'no-address'`) and a warning names order and customer; the message is still
 * acknowledged: a retry seconds later would find no address either, and dead-lettering would treat a
 * valid order as a poison message. A draft is recorded without an address: it may still change.
 */
/** The delivery a message scope was created for. */
export const QUEUE_MESSAGE = serviceKey<Delivery>('queueMessage');
export const FULFILMENT_WORKER = serviceKey<FulfilmentWorker>('fulfilmentWorker');

export class FulfilmentWorker extends BackgroundService {
  readonly name = 'worker';

  constructor(
    private readonly options: {
      db: Database;
      queue: MessageQueue;
      prefetch: number;
      log: Logger;
      clock: Clock;
      addresses: Pick<DeliveryAddresses, 'get'>;
      scopes?: ScopeFactory;
    },
  ) {
    super();
  }

  protected async execute(stopping: AbortSignal): Promise<void> {
    const { queue, prefetch, log } = this.options;
    const backoff = new Backoff(500, 15_000);
    let consumer: Consumer | undefined;
    while (!stopping.aborted && consumer === undefined) {
      try {
        consumer = await queue.consume((d) => this.handle(d), { prefetch });
        log.info({ prefetch }, 'worker consuming');
      } catch (err) {
        const delay = backoff.next();
        log.warn({ err: (err as Error).message, retryInMs: delay }, 'worker cannot consume yet');
        await new Promise<void>((resolve) => {
          const timer = this.options.clock.setTimeout(resolve, delay);
          void whenAborted(stopping).then(() => (this.options.clock.clearTimeout(timer), resolve()));
        });
      }
    }
    if (consumer === undefined) return;
    await whenAborted(stopping);
    // Handlers in flight finish and ack; anything not taken stays in the queue.
    await consumer.stop();
  }

  /**
   * One delivery, in a service scope of its own, created before anything else and disposed when it
   * is done, failed or not; resolving acknowledges it.
   */
  async handle(delivery: Delivery): Promise<void> {
    const scope = this.options.scopes?.createScope([scopeValue(QUEUE_MESSAGE, delivery)]);
    try {
      await this.#handle(delivery, scope);
    } finally {
      // The message's outcome stands; a disposer that fails is logged, not redelivered.
      await scope
        ?.dispose()
        .catch((err: unknown) =>
          this.options.log.error({ err, messageId: delivery.id }, 'message services failed to dispose'),
        );
    }
  }

  async #handle(delivery: Delivery, scope: ServiceScope | undefined): Promise<void> {
    const tenantId = tenantFromHeaders(delivery.headers);
    if (tenantId === undefined) throw new Error(`message ${delivery.id} has no valid tenant_id header`);
    const message = parse(delivery.body);
    const { order } = message;
    const { written, shipTo } = await runWithTenant(tenantId, async () => {
      // The message's tenant context (a scoped service), set from the header just above.
      const tenant = scope ? scope.resolve(TENANT_CONTEXT).required(`message ${delivery.id}`) : tenantId;
      const shipTo =
        order.status === 'confirmed'
          ? ((await this.options.addresses.get(tenant, order.customerId))?.deliveryAddress ?? null)
          : undefined;
      const written = await this.options.db.withTenant(tenant, (sql) =>
        sql.query(
          `insert into fulfilments (tenant_id, message_id, order_id, order_version, status, total, customer_id, delivery, delivery_address)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict (tenant_id, message_id) do nothing`,
          [
            tenantId,
            delivery.id,
            order.orderId,
            order.version,
            order.status,
            order.total,
            order.customerId,
            deliveryOf(shipTo),
            shipTo ? JSON.stringify(shipTo) : null,
          ],
        ),
      );
      return { written, shipTo };
    });
    const duplicate = written.rowCount === 0;
    if (shipTo === null && !duplicate) {
      this.options.log.warn(
        { messageId: delivery.id, tenantId, orderId: order.orderId, customerId: order.customerId },
        'confirmed order held: the customer has no delivery address',
      );
    }
    // The traceparent joins this line to the API request that made the change.
    this.options.log.debug(
      {
        messageId: delivery.id,
        tenantId,
        orderId: order.orderId,
        version: order.version,
        attempt: delivery.attempt,
        duplicate,
        traceparent: delivery.headers.traceparent,
      },
      'order change recorded',
    );
  }
}

/** The row's `delivery`: undefined (a draft: nothing to ship), an address copied, or none on file. */
function deliveryOf(shipTo: DeliveryAddress | null | undefined): string | null {
  return shipTo === undefined ? null : shipTo === null ? 'no-address' : 'addressed';
}

function parse(body: Buffer): OrderChanged {
  const value = JSON.parse(body.toString('utf8')) as Partial<OrderChanged>;
  const order = value?.order;
  if (
    value?.type !== 'order.changed' ||
    typeof order?.orderId !== 'string' ||
    !isValidId(order.customerId) ||
    !Number.isInteger(order.version) ||
    (order.status !== 'draft' && order.status !== 'confirmed') ||
    !Number.isSafeInteger(order.total)
  ) {
    throw new Error('not an order.changed message');
  }
  return value as OrderChanged;
}
