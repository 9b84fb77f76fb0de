import type { ControllerFilters, ResultFilter } from '../../host/controllers/controller-filters.js';
import { mapController } from '../../host/controllers/map-controller.js';
import { describedEndpoint, type BoundRequest } from '../../host/openapi/schema-binder.js';
import type { EndpointGroup } from '../../host/pipeline/endpoint-builder.js';
import { Results } from '../../host/pipeline/results.js';
import type { Policy } from '../../host/security/authorization.js';
import type { OrderLine } from './order.js';
import { CONFIRM_ORDER_API, GET_ORDER_API, LIST_ORDERS_API, PUT_ORDER_API } from './orders-api.js';
import { ORDERS_CONTROLLER, type OrdersController } from './orders-controller.js';

/** Roles that may create, edit and confirm orders. */
export const ORDER_WRITER_ROLES = ['admin', 'buyer'] as const;

const orderWriter: Policy = (principal) =>
  !principal
    ? 'challenge'
    : principal.roles.some((r) => (ORDER_WRITER_ROLES as readonly string[]).includes(r))
      ? 'allow'
      : 'forbid';

/** An order is the caller's own: no shared cache keeps a successful answer (errors say no-store themselves). */
const privateNoStore: ResultFilter = async (ctx, next) => {
  await next();
  if (ctx.http.response.status < 400) ctx.http.response.setHeader('cache-control', 'private, no-store');
};

const FILTERS: ControllerFilters = { result: [privateNoStore] };

/**
 * The orders API (contract "Orders and profile") on the controller pipeline: writes under `/api/orders`
 * (the browser's PUT with its CORS preflight), reads under `/v1/orders`. The controller is created
 * per request in its scope (compose registers it); policies stay endpoint metadata for the
 * authorization middleware, so a refusal answers as on every other endpoint.
 */
export function mapOrderEndpoints(api: EndpointGroup, v1: EndpointGroup): void {
  const writer = { metadata: { policies: [orderWriter] } };

  mapController<OrdersController>(api, {
    name: 'Orders',
    controller: ORDERS_CONTROLLER,
    filters: FILTERS,
    actions: [
      {
        name: 'put',
        method: 'PUT',
        template: '/orders/{orderId}',
        options: describedEndpoint<Record<string, never>, { customerId: string; lines: OrderLine[] }>(
          PUT_ORDER_API,
          writer,
        ),
        invoke: async (
          orders,
          args: BoundRequest<Record<string, never>, { customerId: string; lines: OrderLine[] }>,
          { http },
        ) => Results.json(await orders.put(http, args.params.orderId!, args.body.customerId, args.body.lines)),
      },
      {
        name: 'confirm',
        method: 'POST',
        template: '/orders/{orderId}/confirm',
        options: describedEndpoint(CONFIRM_ORDER_API, writer),
        invoke: async (orders, args: BoundRequest, { http }) =>
          Results.json(await orders.confirm(http, args.params.orderId!)),
      },
    ],
  });

  mapController<OrdersController>(v1, {
    name: 'Orders',
    controller: ORDERS_CONTROLLER,
    filters: FILTERS,
    actions: [
      {
        name: 'list',
        method: 'GET',
        template: '/orders',
        options: describedEndpoint(LIST_ORDERS_API),
        invoke: async (orders, args: BoundRequest<{ offset?: number; cursor?: string; limit?: number }>, { http }) =>
          Results.json(await orders.list(http, args.query)),
      },
      {
        name: 'get',
        method: 'GET',
        template: '/orders/{orderId}',
        options: describedEndpoint(GET_ORDER_API),
        invoke: async (orders, args: BoundRequest, { http }) =>
          Results.json(await orders.get(http, args.params.orderId!)),
      },
    ],
  });
}
