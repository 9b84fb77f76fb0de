import { randomBytes } from 'node:crypto';
import { HubError } from '../host/errors.js';
import { describedEndpoint, type BoundRequest } from '../host/openapi/schema-binder.js';
import type { EndpointGroup } from '../host/pipeline/endpoint-builder.js';
import type { HttpContext } from '../host/pipeline/http-context.js';
import { Results } from '../host/pipeline/results.js';
import { Order, type OrderLine } from '../orders/order.js';
import { CONFIRM_ORDER_API, GET_ORDER_API, LIST_ORDERS_API, PUT_ORDER_API } from '../orders/orders-api.js';
import type { OrderStore } from '../orders/order-store.js';
import type { Policy } from '../security/authorization.js';
import { currentTenant } from '../security/tenant-context.js';

/** Roles that may create, edit and confirm orders. */
export const ORDER_WRITER_ROLES = ['admin', 'buyer'] as const;

const orderWriter: Policy = (principal) =>
  !principal ? 'challenge' : principal.roles.some((r) => (ORDER_WRITER_ROLES as readonly string[]).includes(r)) ? 'allow' : 'forbid';

const NO_STORE = { 'cache-control': 'private, no-store' };

/**
 * The orders API (contract "Orders and profile"): writes under `/api/orders` (the browser's PUT with
 * its CORS preflight), reads under `/v1/orders`. The tenant is the token's, from the request-scoped
 * context, down to `app.tenant_id`. `committed` runs after each accepted change (kicks the outbox relay).
 */
export function mapOrderEndpoints(api: EndpointGroup, v1: EndpointGroup, store: OrderStore, committed: () => void): void {
  const writer = { metadata: { policies: [orderWriter] } };

  api.put<BoundRequest<Record<string, never>, { customerId: string; lines: OrderLine[] }>>(
    '/orders/{orderId}',
    async ({ http, args }) => {
      const { customerId, lines } = args.body;
      const order = await store.change(
        tenantOf(http),
        args.params.orderId!,
        (current) => (current ? current.replace(customerId, lines) : Order.draft(args.params.orderId!, customerId, lines)),
        { headers: { traceparent: traceparentOf(http) } },
      );
      committed();
      return Results.json(order, 200, NO_STORE);
    },
    describedEndpoint(PUT_ORDER_API, writer),
  );

  api.post<BoundRequest>(
    '/orders/{orderId}/confirm',
    async ({ http, args }) => {
      const orderId = args.params.orderId!;
      const order = await store.change(
        tenantOf(http),
        orderId,
        (current) => {
          if (!current) throw new HubError('ORDERS_NOT_FOUND', `No order ${orderId}.`);
          return current.confirm();
        },
        { headers: { traceparent: traceparentOf(http) } },
      );
      committed();
      return Results.json(order, 200, NO_STORE);
    },
    describedEndpoint(CONFIRM_ORDER_API, writer),
  );

  v1.get<BoundRequest<{ offset?: number; cursor?: string; limit?: number }>>(
    '/orders',
    async ({ http, args }) => {
      const { offset, cursor, limit = 50 } = args.query;
      if (offset !== undefined && cursor !== undefined) {
        throw new HubError('HTTP_BAD_REQUEST', 'Use offset or cursor, not both.', { errors: { cursor: 'cannot be combined with offset' } });
      }
      if (offset !== undefined) {
        const page = await store.pageByOffset(tenantOf(http), offset, limit);
        return Results.json({ items: page.items, offset, limit, total: page.total }, 200, NO_STORE);
      }
      const page = await store.pageBefore(tenantOf(http), cursor === undefined ? undefined : decodeCursor(cursor), limit);
      return Results.json({ items: page.items, nextCursor: page.lastPosition === undefined ? null : encodeCursor(page.lastPosition) }, 200, NO_STORE);
    },
    describedEndpoint(LIST_ORDERS_API),
  );

  v1.get<BoundRequest>(
    '/orders/{orderId}',
    async ({ http, args }) => {
      const order = await store.get(tenantOf(http), args.params.orderId!);
      if (!order) throw new HubError('ORDERS_NOT_FOUND', `No order ${args.params.orderId!}.`);
      return Results.json(order, 200, NO_STORE);
    },
    describedEndpoint(GET_ORDER_API),
  );
}

function tenantOf(http: HttpContext): string {
  // Set by authentication for the whole request; these endpoints require a signed-in user.
  const tenantId = currentTenant();
  if (tenantId === undefined) throw new Error(`${http.originalPath} ran without a tenant context`);
  return tenantId;
}

/** The request's trace, continued by the worker: same trace id, this hop as the parent. */
function traceparentOf(http: HttpContext): string {
  return `00-${http.traceId}-${randomBytes(8).toString('hex')}-01`;
}

// Opaque to clients; a position in creation order (the page's sort key), checked on the way back.
function encodeCursor(position: number): string {
  return Buffer.from(`o1:${position}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const m = /^o1:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || Buffer.from(`o1:${m[1]}`).toString('base64url') !== cursor) throw new HubError('ORDERS_BAD_CURSOR', 'The cursor is not one this API returned.');
  return Number(m[1]);
}
