import type { ApiDescription, JsonSchema } from '../../../host/openapi/api-description.js';
import { CUSTOMER_ID, line, optionalLine, READ_ERRORS, WRITE_ERRORS } from '../customer-schemas.js';

const PARTS = {
  recipient: line(200, 'who receives the parcel'),
  line1: line(200),
  line2: optionalLine(200),
  city: line(100),
  region: optionalLine(100, 'state, province or county, where the country uses one'),
  postalCode: line(16),
  country: {
    type: 'string',
    maxLength: 2,
    pattern: '^[A-Z]{2}$',
    description: 'ISO 3166-1 alpha-2, upper case (DE, US)',
  },
  phone: { type: ['string', 'null'], maxLength: 32, pattern: '^\\+?[0-9 ()-]{3,32}$', description: 'for the carrier' },
};

const ADDRESS: JsonSchema = { type: 'object', required: Object.keys(PARTS), properties: PARTS };
const ADDRESS_IN: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['recipient', 'line1', 'city', 'postalCode', 'country'],
  properties: PARTS,
};

export const FULFILMENT_CUSTOMER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['customerId', 'deliveryAddress', 'version'],
  properties: {
    customerId: { type: 'string', maxLength: 64 },
    deliveryAddress: ADDRESS,
    version: { type: 'integer', description: '1 when created, one more per accepted PUT' },
  },
};

export const PUT_DELIVERY_ADDRESS_API: ApiDescription = {
  group: 'public',
  operationId: 'putDeliveryAddress',
  summary: "Create or replace the customer's delivery address",
  description:
    'Full-state replace (an absent optional part becomes null). The fulfilment worker copies this address into the fulfilment of each order of this customer it fulfils once confirmed; an order fulfilled before keeps the address it was fulfilled with. Roles admin or buyer.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID],
  body: {
    contentType: 'application/json',
    description: 'the address',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['deliveryAddress'],
      properties: { deliveryAddress: ADDRESS_IN },
    },
  },
  responses: {
    200: { description: 'the address, replaced', schema: FULFILMENT_CUSTOMER_SCHEMA },
    201: { description: 'the address, created', schema: FULFILMENT_CUSTOMER_SCHEMA },
    ...WRITE_ERRORS,
  },
};

export const GET_DELIVERY_ADDRESS_API: ApiDescription = {
  group: 'public',
  operationId: 'getDeliveryAddress',
  summary: "Read the customer's delivery address",
  description: "The delivery address of one of the caller's tenant's customers.",
  tags: ['customers'],
  parameters: [CUSTOMER_ID],
  responses: {
    200: { description: 'the address', schema: FULFILMENT_CUSTOMER_SCHEMA },
    ...READ_ERRORS,
    404: { description: 'fulfilment has no address for this customer in this tenant (HUB_ERR_CUSTOMERS_NOT_FOUND)' },
  },
};
