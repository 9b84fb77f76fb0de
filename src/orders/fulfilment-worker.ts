import type { Logger } from 'pino';
import type { Database } from '../db/database.js';
import type { Clock } from '../host/clock.js';
import { BackgroundService } from '../host/lifecycle/hosted-service.js';
import { Backoff } from '../ingest/mqtt/backoff.js';
import type { Consumer, Delivery, MessageQueue } from '../queue/message-queue.js';
import { currentTenant, runWithTenant, tenantFromHeaders } from '../security/tenant-context.js';
import type { OrderState } from './order.js';

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
 */
export class FulfilmentWorker extends BackgroundService {
  readonly name = 'worker';

  constructor(
    private readonly options: { db: Database; queue: MessageQueue; prefetch: number; log: Logger; clock: Clock },
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
          stopping.addEventListener('abort', () => (this.options.clock.clearTimeout(timer), resolve()), { once: true });
        });
      }
    }
    if (consumer === undefined) return;
    await new Promise<void>((resolve) => stopping.addEventListener('abort', () => resolve(), { once: true }));
    // Handlers in flight finish and ack; anything not taken stays in the queue.
    await consumer.stop();
  }

  /** One delivery; resolving acknowledges it. */
  async handle(delivery: Delivery): Promise<void> {
    const tenantId = tenantFromHeaders(delivery.headers);
    if (tenantId === undefined) throw new Error(`message ${delivery.id} has no valid tenant_id header`);
    const message = parse(delivery.body);
    const written = await runWithTenant(tenantId, () =>
      this.options.db.withTenant(currentTenant()!, (sql) =>
        sql.query(
          `insert into fulfilments (tenant_id, message_id, order_id, order_version, status, total)
           values ($1, $2, $3, $4, $5, $6) on conflict (tenant_id, message_id) do nothing`,
          [tenantId, delivery.id, message.order.orderId, message.order.version, message.order.status, message.order.total],
        ),
      ),
    );
    // The traceparent joins this line to the API request that made the change.
    this.options.log.debug(
      { messageId: delivery.id, tenantId, orderId: message.order.orderId, version: message.order.version, attempt: delivery.attempt, duplicate: written.rowCount === 0, traceparent: delivery.headers.traceparent },
      'order change recorded',
    );
  }
}

function parse(body: Buffer): OrderChanged {
  const value = JSON.parse(body.toString('utf8')) as Partial<OrderChanged>;
  const order = value?.order;
  if (
    value?.type !== 'order.changed' ||
    typeof order?.orderId !== 'string' ||
    !Number.isInteger(order.version) ||
    (order.status !== 'draft' && order.status !== 'confirmed') ||
    !Number.isSafeInteger(order.total)
  ) {
    throw new Error('not an order.changed message');
  }
  return value as OrderChanged;
}
