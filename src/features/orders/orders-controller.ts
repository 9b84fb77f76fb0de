import { serviceKey } from '../../host/container/service-key.js';
import { HubError } from '../../host/errors.js';
import { outboundTraceparent } from '../../host/hop-trace.js';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import type { TenantContext } from '../../host/security/tenant-scope.js';
import { Order, type OrderLine, type OrderState } from './order.js';
import type { OrderStore } from './order-store.js';

/** Runs after each accepted change (kicks the outbox relay). */
export type OrderCommitted = () => void;

export const ORDER_STORE = serviceKey<OrderStore>('orderStore');
export const ORDER_COMMITTED = serviceKey<OrderCommitted>('orderCommitted');
export const ORDERS_CONTROLLER = serviceKey<OrdersController>('ordersController');

/**
 * The orders API's actions, created per request in its scope: the tenant is the request's
 * (`TenantContext`), down to `app.tenant_id`; the routes, binding and filters are in orders-endpoints.ts.
 */
export class OrdersController {
  constructor(
    private readonly store: OrderStore,
    private readonly tenant: TenantContext,
    private readonly committed: OrderCommitted,
  ) {}

  async put(http: HttpContext, orderId: string, customerId: string, lines: OrderLine[]): Promise<OrderState> {
    const order = await this.store.change(
      this.#tenantId(http),
      orderId,
      (current) => (current ? current.replace(customerId, lines) : Order.draft(orderId, customerId, lines)),
      { headers: { traceparent: traceparentOf(http) } },
    );
    this.committed();
    return order;
  }

  async confirm(http: HttpContext, orderId: string): Promise<OrderState> {
    const order = await this.store.change(
      this.#tenantId(http),
      orderId,
      (current) => {
        if (!current) throw new HubError('ORDERS_NOT_FOUND', `No order ${orderId}.`);
        return current.confirm();
      },
      { headers: { traceparent: traceparentOf(http) } },
    );
    this.committed();
    return order;
  }

  async list(http: HttpContext, query: { offset?: number; cursor?: string; limit?: number }): Promise<object> {
    const { offset, cursor, limit = 50 } = query;
    if (offset !== undefined && cursor !== undefined) {
      throw new HubError('HTTP_BAD_REQUEST', 'Use offset or cursor, not both.', {
        errors: { cursor: 'cannot be combined with offset' },
      });
    }
    if (offset !== undefined) {
      const page = await this.store.pageByOffset(this.#tenantId(http), offset, limit);
      return { items: page.items, offset, limit, total: page.total };
    }
    const page = await this.store.pageBefore(
      this.#tenantId(http),
      cursor === undefined ? undefined : decodeCursor(cursor),
      limit,
    );
    return { items: page.items, nextCursor: page.lastSeq === undefined ? null : encodeCursor(page.lastSeq) };
  }

  async get(http: HttpContext, orderId: string): Promise<OrderState> {
    const order = await this.store.get(this.#tenantId(http), orderId);
    if (!order) throw new HubError('ORDERS_NOT_FOUND', `No order ${orderId}.`);
    return order;
  }

  #tenantId(http: HttpContext): string {
    // Set by authentication for the whole request; these endpoints require a signed-in user.
    return this.tenant.required(http.originalPath);
  }
}

/**
 * The request's trace, continued by the queue: the request's server span as the parent when it is
 * sampled, else "not sampled" in the request's trace (the worker logs the same trace id).
 */
function traceparentOf(http: HttpContext): string {
  return outboundTraceparent(undefined, http.traceId);
}

// Opaque to clients; the last item's `seq`, the tenant's own count of its orders (the page's sort
// key), so a cursor moves with the caller's orders only. Checked on the way back; `o1:` cursors held
// a position over all tenants and are refused.
function encodeCursor(seq: number): string {
  return Buffer.from(`o2:${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const m = /^o2:([1-9]\d{0,14})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || encodeCursor(Number(m[1])) !== cursor)
    throw new HubError('ORDERS_BAD_CURSOR', 'The cursor is not one this API returned.');
  return Number(m[1]);
}
