import type { ApiDescription, ApiParameter, JsonSchema } from '../../../host/openapi/api-description.js';
import {
  CUSTOMER_ID,
  ID,
  INSTANT,
  line,
  pageOf,
  PAGE_PARAMETERS,
  READ_ERRORS,
  WRITE_ERRORS,
} from '../customer-schemas.js';
import { TICKET_PRIORITIES, TICKET_STATUSES } from './support-ticket.js';

const VALUES = {
  subject: line(200),
  // Free text over several lines: tabs and line breaks, no other control characters.
  description: { type: ['string', 'null'], maxLength: 4000, pattern: '^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]*$' },
  status: {
    type: 'string',
    maxLength: 8,
    enum: [...TICKET_STATUSES],
    description: 'open, pending, resolved (may be reopened) or closed (final)',
  },
  priority: { type: 'string', maxLength: 6, enum: [...TICKET_PRIORITIES] },
};

export const TICKET_SCHEMA: JsonSchema = {
  type: 'object',
  required: [
    'ticketId',
    'customerId',
    'subject',
    'description',
    'status',
    'priority',
    'openedAt',
    'closedAt',
    'version',
  ],
  properties: {
    ticketId: { type: 'string', maxLength: 64 },
    customerId: { type: 'string', maxLength: 64 },
    ...VALUES,
    openedAt: { ...INSTANT, description: 'when the ticket was first written (ISO 8601, UTC)' },
    closedAt: { type: ['string', 'null'], maxLength: 24, description: 'when it was closed; null while it is not' },
    version: { type: 'integer', description: '1 when opened, one more per accepted PUT' },
  },
};

const SUPPORT_CUSTOMER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['customerId', 'ticketCount', 'waitingTickets'],
  properties: {
    customerId: { type: 'string', maxLength: 64 },
    ticketCount: { type: 'integer', description: 'tickets ever opened' },
    waitingTickets: { type: 'integer', description: 'tickets open or pending' },
  },
};

const TICKET_ID: ApiParameter = {
  name: 'ticketId',
  in: 'path',
  required: true,
  schema: ID,
  description: "chosen by the client; unique among the customer's tickets",
};
const NO_HISTORY = {
  description: 'support has no ticket for this customer in this tenant (HUB_ERR_CUSTOMERS_NOT_FOUND)',
};

export const GET_SUPPORT_CUSTOMER_API: ApiDescription = {
  group: 'public',
  operationId: 'getSupportCustomer',
  summary: "Read the customer's ticket history, summed up",
  description:
    'How many tickets the customer has opened and how many wait (open or pending); the tickets are listed under /tickets.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID],
  responses: { 200: { description: 'the summary', schema: SUPPORT_CUSTOMER_SCHEMA }, ...READ_ERRORS, 404: NO_HISTORY },
};

export const PUT_TICKET_API: ApiDescription = {
  group: 'public',
  operationId: 'putTicket',
  summary: 'Open or replace a support ticket of the customer',
  description:
    'Full-state replace of the ticket (an absent description becomes null); the first PUT opens it. A closed ticket is final: any further PUT is 409. Roles admin or buyer.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID, TICKET_ID],
  body: {
    contentType: 'application/json',
    description: 'the ticket',
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['subject', 'status', 'priority'],
      properties: VALUES,
    },
  },
  responses: {
    200: { description: 'the ticket, replaced', schema: TICKET_SCHEMA },
    201: { description: 'the ticket, opened', schema: TICKET_SCHEMA },
    ...WRITE_ERRORS,
    409: { description: 'the ticket is closed (HUB_ERR_CUSTOMERS_TICKET_CLOSED)' },
  },
};

export const GET_TICKET_API: ApiDescription = {
  group: 'public',
  operationId: 'getTicket',
  summary: 'Read one support ticket of the customer',
  description: "One ticket of one of the caller's tenant's customers.",
  tags: ['customers'],
  parameters: [CUSTOMER_ID, TICKET_ID],
  responses: {
    200: { description: 'the ticket', schema: TICKET_SCHEMA },
    ...READ_ERRORS,
    404: { description: 'no such ticket of this customer in this tenant (HUB_ERR_CUSTOMERS_NOT_FOUND)' },
  },
};

export const LIST_TICKETS_API: ApiDescription = {
  group: 'public',
  operationId: 'listTickets',
  summary: "The customer's ticket history, newest opened first",
  description:
    'A cursor page { items, nextCursor }: the cursor continues after the last item returned, so tickets opened meanwhile cause no repeat and no skip.',
  tags: ['customers'],
  parameters: [CUSTOMER_ID, ...PAGE_PARAMETERS],
  responses: {
    200: { description: 'a page', schema: pageOf(TICKET_SCHEMA) },
    ...READ_ERRORS,
    400: { description: 'a bad id or parameter, or a cursor this list did not return (HUB_ERR_CUSTOMERS_BAD_CURSOR)' },
    404: NO_HISTORY,
  },
};
