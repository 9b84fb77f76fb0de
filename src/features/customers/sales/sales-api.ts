import type { ApiDescription, JsonSchema } from '../../../host/openapi/api-description.js';
import { CUSTOMER_ID, INSTANT, line, optionalLine, READ_ERRORS, WRITE_ERRORS } from '../customer-schemas.js';
import { LEAD_STAGES } from './lead.js';

const STAGE: JsonSchema = {
  type: 'string',
  maxLength: 9,
  enum: [...LEAD_STAGES],
  description: 'the pipeline stage: new, contacted, qualified, proposal, won, lost',
};
const EMAIL: JsonSchema = { type: ['string', 'null'], maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' };

const VALUES = {
  name: line(200, 'the person or organisation the lead is'),
  company: optionalLine(200),
  email: EMAIL,
  stage: STAGE,
};

export const LEAD_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['customerId', 'name', 'company', 'email', 'stage', 'stageSince', 'version'],
  properties: {
    customerId: { type: 'string', maxLength: 64 },
    ...VALUES,
    stageSince: { ...INSTANT, description: 'when the lead entered its stage (ISO 8601, UTC); set by the server' },
    version: { type: 'integer', description: '1 when created, one more per accepted PUT' },
  },
};

export const PUT_SALES_LEAD_API: ApiDescription = {
  group: 'public',
  operationId: 'putSalesLead',
  summary: 'Create or replace the customer as a sales lead',
  description:
    'Full-state replace of the lead (an absent company or email becomes null). stageSince moves when the stage changes. Sales only: the same customer id in fulfilment, billing or support is another aggregate. Roles admin or buyer.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID],
  body: {
    contentType: 'application/json',
    description: 'the lead',
    schema: { type: 'object', additionalProperties: false, required: ['name', 'stage'], properties: VALUES },
  },
  responses: {
    200: { description: 'the lead, replaced', schema: LEAD_SCHEMA },
    201: { description: 'the lead, created', schema: LEAD_SCHEMA },
    ...WRITE_ERRORS,
  },
};

export const GET_SALES_LEAD_API: ApiDescription = {
  group: 'public',
  operationId: 'getSalesLead',
  summary: 'Read the customer as a sales lead',
  description: "The lead of one of the caller's tenant's customers.",
  tags: ['customers'],
  parameters: [CUSTOMER_ID],
  responses: {
    200: { description: 'the lead', schema: LEAD_SCHEMA },
    ...READ_ERRORS,
    404: { description: 'sales has no such customer in this tenant (HUB_ERR_CUSTOMERS_NOT_FOUND)' },
  },
};
