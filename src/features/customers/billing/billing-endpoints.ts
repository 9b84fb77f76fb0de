import { HubError } from '../../../host/errors.js';
import { describedEndpoint, type BoundRequest } from '../../../host/openapi/schema-binder.js';
import type { EndpointGroup } from '../../../host/pipeline/endpoint-builder.js';
import { Results } from '../../../host/pipeline/results.js';
import { customerWriter, NO_STORE, tenantOf } from '../customer-http.js';
import { decodeCursor, encodeCursor } from '../seq-cursor.js';
import { checkPaidOn, type BillingValues } from './billing-account.js';
import { BILLING_ACCOUNTS } from './billing-accounts.js';
import { GET_BILLING_ACCOUNT_API, LIST_PAYMENTS_API, PUT_BILLING_ACCOUNT_API, PUT_PAYMENT_API } from './billing-api.js';

type PaymentBody = { amount: number; paidOn: string; reference?: string | null };

/**
 * `PUT|GET /v1/customers/{customerId}/billing` (credit limit, currency), `PUT
 * …/billing/payments/{paymentId}` (append one, idempotent) and `GET …/billing/payments` (the history).
 */
export function mapBillingEndpoints(v1: EndpointGroup): void {
  const writer = { metadata: { policies: [customerWriter] } };

  v1.put<BoundRequest<Record<string, never>, BillingValues>>(
    '/customers/{customerId}/billing',
    async ({ http, args }) => {
      const { creditLimit, currency } = args.body;
      const { account, created } = await http.services
        .resolve(BILLING_ACCOUNTS)
        .put(tenantOf(http.originalPath), args.params.customerId!, {
          creditLimit,
          currency,
        });
      return Results.json(account, created ? 201 : 200, NO_STORE);
    },
    describedEndpoint(PUT_BILLING_ACCOUNT_API, writer),
  );

  v1.get<BoundRequest>(
    '/customers/{customerId}/billing',
    async ({ http, args }) => {
      const account = await http.services
        .resolve(BILLING_ACCOUNTS)
        .get(tenantOf(http.originalPath), args.params.customerId!);
      if (!account) throw noAccount(args.params.customerId!);
      return Results.json(account, 200, NO_STORE);
    },
    describedEndpoint(GET_BILLING_ACCOUNT_API),
  );

  v1.put<BoundRequest<Record<string, never>, PaymentBody>>(
    '/customers/{customerId}/billing/payments/{paymentId}',
    async ({ http, args }) => {
      const { amount, paidOn, reference = null } = args.body;
      checkPaidOn(paidOn);
      const { payment, created } = await http.services
        .resolve(BILLING_ACCOUNTS)
        .recordPayment(tenantOf(http.originalPath), args.params.customerId!, args.params.paymentId!, {
          amount,
          paidOn,
          reference,
        });
      return Results.json(payment, created ? 201 : 200, NO_STORE);
    },
    describedEndpoint(PUT_PAYMENT_API, writer),
  );

  v1.get<BoundRequest<{ cursor?: string; limit?: number }>>(
    '/customers/{customerId}/billing/payments',
    async ({ http, args }) => {
      const { cursor, limit = 50 } = args.query;
      const page = await http.services
        .resolve(BILLING_ACCOUNTS)
        .payments(
          tenantOf(http.originalPath),
          args.params.customerId!,
          cursor === undefined ? undefined : decodeCursor('p', cursor),
          limit,
        );
      if (!page) throw noAccount(args.params.customerId!);
      return Results.json(
        { items: page.items, nextCursor: page.lastSeq === undefined ? null : encodeCursor('p', page.lastSeq) },
        200,
        NO_STORE,
      );
    },
    describedEndpoint(LIST_PAYMENTS_API),
  );
}

function noAccount(customerId: string): HubError {
  return new HubError('CUSTOMERS_NOT_FOUND', `Billing has no account for customer ${customerId}.`);
}
