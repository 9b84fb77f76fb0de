import { describe, expect, it } from 'vitest';
import type { ApiDescription } from '../../../src/host/openapi/api-description.js';
import {
  CONFIRM_ORDER_API,
  GET_ORDER_API,
  LIST_ORDERS_API,
  PUT_ORDER_API,
} from '../../../src/features/orders/orders-api.js';
import { APPLY_PROFILE_API, GET_PROFILE_API, PUT_PROFILE_API } from '../../../src/features/profile/profile-api.js';
import { GET_SALES_LEAD_API, PUT_SALES_LEAD_API } from '../../../src/features/customers/sales/sales-api.js';
import {
  GET_DELIVERY_ADDRESS_API,
  PUT_DELIVERY_ADDRESS_API,
} from '../../../src/features/customers/fulfilment/fulfilment-api.js';
import {
  GET_BILLING_ACCOUNT_API,
  LIST_PAYMENTS_API,
  PUT_BILLING_ACCOUNT_API,
  PUT_PAYMENT_API,
} from '../../../src/features/customers/billing/billing-api.js';
import {
  GET_SUPPORT_CUSTOMER_API,
  GET_TICKET_API,
  LIST_TICKETS_API,
  PUT_TICKET_API,
} from '../../../src/features/customers/support/support-api.js';

const DESCRIBED: ApiDescription[] = [
  PUT_ORDER_API,
  CONFIRM_ORDER_API,
  LIST_ORDERS_API,
  GET_ORDER_API,
  GET_PROFILE_API,
  PUT_PROFILE_API,
  APPLY_PROFILE_API,
  PUT_SALES_LEAD_API,
  GET_SALES_LEAD_API,
  PUT_DELIVERY_ADDRESS_API,
  GET_DELIVERY_ADDRESS_API,
  PUT_BILLING_ACCOUNT_API,
  GET_BILLING_ACCOUNT_API,
  PUT_PAYMENT_API,
  LIST_PAYMENTS_API,
  GET_SUPPORT_CUSTOMER_API,
  PUT_TICKET_API,
  GET_TICKET_API,
  LIST_TICKETS_API,
];

/** Where a string schema under `node` has no maxLength, as paths (`putOrder.body.lines[].sku`). */
function unbounded(node: unknown, at: string, out: string[]): string[] {
  if (Array.isArray(node)) {
    node.forEach((item, i) => unbounded(item, `${at}[${i}]`, out));
    return out;
  }
  if (node === null || typeof node !== 'object') return out;
  const schema = node as Record<string, unknown>;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('string') && typeof schema.maxLength !== 'number') out.push(at);
  for (const [key, value] of Object.entries(schema))
    unbounded(value, key === 'items' ? `${at}[]` : `${at}.${key}`, out);
  return out;
}

/** Item 5 of the security review: every string the orders, profile and customers APIs take or give is bounded. */
describe('string lengths in the orders, profile and customers descriptions', () => {
  it('every string schema (parameters, bodies, responses, headers) has a maxLength', () => {
    const missing = DESCRIBED.flatMap((api) => unbounded(api, api.operationId, []));
    expect(missing).toEqual([]);
  });

  it('the walk finds an unbounded string where there is one', () => {
    expect(
      unbounded(
        {
          properties: {
            a: { type: 'string' },
            b: { type: ['string', 'null'], maxLength: 3 },
            c: { items: { type: ['null', 'string'] } },
          },
        },
        'x',
        [],
      ),
    ).toEqual(['x.properties.a', 'x.properties.c[]']);
  });
});
