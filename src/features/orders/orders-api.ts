import { ID_PATTERN } from '../../host/ids.js';
import type { ApiDescription, ApiParameter, JsonSchema } from '../../host/openapi/api-description.js';

/**
 * Request and response shapes of the orders API (contract "Orders and profile"), for binder and
 * documents alike. Every string has a maxLength, so an over-long value is a 400 naming it before
 * any rule or pattern runs on it.
 */
const ID: JsonSchema = { type: 'string', maxLength: 64, pattern: ID_PATTERN.source };
/** An orders cursor is `o2:` and a number of up to 15 digits, in base64url: 24 characters at most. */
const CURSOR_MAX_LENGTH = 64;

const LINE: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['sku', 'quantity', 'unitPrice'],
  properties: {
    sku: { type: 'string', maxLength: 64, description: 'the device or part ordered' },
    quantity: { type: 'integer', description: '1 to 10000' },
    unitPrice: { type: 'integer', description: 'integer minor units (cents), 0 to 1000000000' },
  },
};

export const ORDER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['orderId', 'customerId', 'status', 'lines', 'total', 'version'],
  properties: {
    orderId: { type: 'string', maxLength: 64 },
    customerId: { type: 'string', maxLength: 64, description: 'the customer, by id only' },
    status: { type: 'string', maxLength: 9, enum: ['draft', 'confirmed'] },
    lines: { type: 'array', items: LINE },
    total: { type: 'integer', description: 'the sum of quantity × unitPrice over the lines, minor units' },
    version: { type: 'integer', description: '1 when created, one more per accepted change' },
  },
};

const ORDER_ID: ApiParameter = {
  name: 'orderId',
  in: 'path',
  required: true,
  schema: ID,
  description: 'chosen by the client',
};

const ERRORS = {
  401: { description: 'no or a bad token' },
  403: { description: 'the token lacks the role admin or buyer' },
};

export const PUT_ORDER_API: ApiDescription = {
  group: 'public',
  operationId: 'putOrder',
  summary: 'Create or replace a draft order',
  description:
    'Full-state replace of a draft: customer and lines. The total is computed by the server. Accepted changes are published to the queue with the header tenant_id. Roles admin or buyer.',
  tags: ['orders'],
  parameters: [ORDER_ID],
  body: {
    contentType: 'application/json',
    description: 'customer and lines',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['customerId', 'lines'],
      properties: { customerId: ID, lines: { type: 'array', maxItems: 100, items: LINE } },
    },
  },
  responses: {
    200: { description: 'the order as stored', schema: ORDER_SCHEMA },
    400: { description: 'the body is not the shape above; errors names each value' },
    ...ERRORS,
    409: { description: 'the order is confirmed (HUB_ERR_ORDERS_CONFIRMED)' },
    422: { description: 'a line breaks a rule (HUB_ERR_ORDERS_INVALID); errors names each' },
  },
};

export const CONFIRM_ORDER_API: ApiDescription = {
  group: 'public',
  operationId: 'confirmOrder',
  summary: 'Confirm an order',
  description: 'A confirmed order never changes again. Roles admin or buyer.',
  tags: ['orders'],
  parameters: [ORDER_ID],
  responses: {
    200: { description: 'the confirmed order', schema: ORDER_SCHEMA },
    400: { description: 'a bad order id' },
    ...ERRORS,
    404: { description: 'no such order (HUB_ERR_ORDERS_NOT_FOUND)' },
    409: { description: 'already confirmed, or no lines (HUB_ERR_ORDERS_CONFIRMED, HUB_ERR_ORDERS_EMPTY)' },
  },
};

export const LIST_ORDERS_API: ApiDescription = {
  group: 'public',
  operationId: 'listOrders',
  summary: "List the caller's orders, newest first",
  description:
    "With offset: an offset page { items, offset, limit, total } (an order created between two requests shifts the next page, so an item repeats). Otherwise a cursor page { items, nextCursor }: the cursor continues after the last item returned, with no repeat and no skip; it counts the caller's own orders only.",
  tags: ['orders'],
  parameters: [
    { name: 'offset', in: 'query', schema: { type: 'integer', minimum: 0, maximum: 1_000_000 } },
    {
      name: 'cursor',
      in: 'query',
      schema: { type: 'string', maxLength: CURSOR_MAX_LENGTH },
      description: 'nextCursor of the previous page',
    },
    { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500, default: 50 } },
  ],
  responses: {
    200: {
      description: 'a page',
      schema: {
        oneOf: [
          {
            type: 'object',
            required: ['items', 'offset', 'limit', 'total'],
            properties: {
              items: { type: 'array', items: ORDER_SCHEMA },
              offset: { type: 'integer' },
              limit: { type: 'integer' },
              total: { type: 'integer' },
            },
          },
          {
            type: 'object',
            required: ['items', 'nextCursor'],
            properties: {
              items: { type: 'array', items: ORDER_SCHEMA },
              nextCursor: { type: ['string', 'null'], maxLength: CURSOR_MAX_LENGTH },
            },
          },
        ],
      },
    },
    400: { description: 'a bad parameter, offset with cursor, or a cursor this API did not return' },
    401: ERRORS[401],
  },
};

export const GET_ORDER_API: ApiDescription = {
  group: 'public',
  operationId: 'getOrder',
  summary: 'Read one order',
  description: "One of the caller's tenant's orders.",
  tags: ['orders'],
  parameters: [ORDER_ID],
  responses: {
    200: { description: 'the order', schema: ORDER_SCHEMA },
    400: { description: 'a bad order id' },
    401: ERRORS[401],
    404: { description: 'no such order in this tenant (HUB_ERR_ORDERS_NOT_FOUND)' },
  },
};
