import type { ApiDescription, ApiParameter, JsonSchema } from '../../../host/openapi/api-description.js';
import {
  CUSTOMER_ID,
  ID,
  optionalLine,
  pageOf,
  PAGE_PARAMETERS,
  READ_ERRORS,
  WRITE_ERRORS,
} from '../customer-schemas.js';
import { MAX_CREDIT_LIMIT, MAX_PAYMENT_AMOUNT } from './billing-account.js';

const VALUES = {
  creditLimit: {
    type: 'integer',
    minimum: 0,
    maximum: MAX_CREDIT_LIMIT,
    description: 'integer minor units (cents) of the currency',
  },
  currency: {
    type: 'string',
    maxLength: 3,
    pattern: '^[A-Z]{3}$',
    description: 'ISO 4217 (EUR, USD); fixed once a payment is recorded',
  },
};

export const BILLING_ACCOUNT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['customerId', 'creditLimit', 'currency', 'paymentCount', 'version'],
  properties: {
    customerId: { type: 'string', maxLength: 64 },
    ...VALUES,
    paymentCount: { type: 'integer', description: 'payments recorded so far' },
    version: { type: 'integer', description: '1 when created, one more per accepted change (a PUT, a new payment)' },
  },
};

const PAYMENT_VALUES = {
  amount: {
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAYMENT_AMOUNT,
    description: 'integer minor units (cents) of the account currency',
  },
  paidOn: {
    type: 'string',
    maxLength: 10,
    pattern: '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$',
    description: 'the day the money arrived, YYYY-MM-DD',
  },
  reference: optionalLine(128, "the payer's or the bank's reference"),
};

export const PAYMENT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['paymentId', 'amount', 'paidOn', 'reference'],
  properties: { paymentId: { type: 'string', maxLength: 64 }, ...PAYMENT_VALUES },
};

const PAYMENT_ID: ApiParameter = {
  name: 'paymentId',
  in: 'path',
  required: true,
  schema: ID,
  description: 'chosen by the client; sending it again is a safe retry',
};
const NO_ACCOUNT = {
  description: 'billing has no account for this customer in this tenant (HUB_ERR_CUSTOMERS_NOT_FOUND)',
};

export const PUT_BILLING_ACCOUNT_API: ApiDescription = {
  group: 'public',
  operationId: 'putBillingAccount',
  summary: "Create or replace the customer's billing account",
  description:
    'Sets the credit limit and the currency. The payment history is kept; the currency can change only while it is empty. Roles admin or buyer.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID],
  body: {
    contentType: 'application/json',
    description: 'limit and currency',
    schema: { type: 'object', additionalProperties: false, required: ['creditLimit', 'currency'], properties: VALUES },
  },
  responses: {
    200: { description: 'the account, replaced', schema: BILLING_ACCOUNT_SCHEMA },
    201: { description: 'the account, created', schema: BILLING_ACCOUNT_SCHEMA },
    ...WRITE_ERRORS,
    409: { description: 'payments are recorded in the current currency (HUB_ERR_CUSTOMERS_CURRENCY_LOCKED)' },
  },
};

export const GET_BILLING_ACCOUNT_API: ApiDescription = {
  group: 'public',
  operationId: 'getBillingAccount',
  summary: "Read the customer's billing account",
  description:
    'Credit limit, currency and how many payments are recorded; the payments themselves are listed under /payments.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID],
  responses: { 200: { description: 'the account', schema: BILLING_ACCOUNT_SCHEMA }, ...READ_ERRORS, 404: NO_ACCOUNT },
};

export const PUT_PAYMENT_API: ApiDescription = {
  group: 'public',
  operationId: 'putPayment',
  summary: "Record a payment in the customer's payment history",
  description:
    'Payments are appended, never changed or removed. The client names the payment: the same id with the same values again is a retry (200, the recorded payment); with other values a conflict (409). Roles admin or buyer.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID, PAYMENT_ID],
  body: {
    contentType: 'application/json',
    description: 'the payment',
    schema: { type: 'object', additionalProperties: false, required: ['amount', 'paidOn'], properties: PAYMENT_VALUES },
  },
  responses: {
    200: { description: 'recorded before with these values (a retry)', schema: PAYMENT_SCHEMA },
    201: { description: 'recorded now', schema: PAYMENT_SCHEMA },
    ...WRITE_ERRORS,
    404: NO_ACCOUNT,
    409: {
      description:
        'this payment id is recorded with other values (HUB_ERR_CUSTOMERS_PAYMENT_CONFLICT); recorded holds them',
    },
    422: { description: 'paidOn is not a day of the calendar (HUB_ERR_CUSTOMERS_INVALID)' },
  },
};

export const LIST_PAYMENTS_API: ApiDescription = {
  group: 'public',
  operationId: 'listPayments',
  summary: "The customer's payment history, newest recorded first",
  description:
    'A cursor page { items, nextCursor }: the cursor continues after the last item returned, so payments recorded meanwhile cause no repeat and no skip.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID, ...PAGE_PARAMETERS],
  responses: {
    200: { description: 'a page', schema: pageOf(PAYMENT_SCHEMA) },
    ...READ_ERRORS,
    400: { description: 'a bad id or parameter, or a cursor this list did not return (HUB_ERR_CUSTOMERS_BAD_CURSOR)' },
    404: NO_ACCOUNT,
  },
};
