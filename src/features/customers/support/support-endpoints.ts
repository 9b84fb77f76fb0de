import { HubError } from '../../../host/errors.js';
import { describedEndpoint, type BoundRequest } from '../../../host/openapi/schema-binder.js';
import type { EndpointGroup } from '../../../host/pipeline/endpoint-builder.js';
import { Results } from '../../../host/pipeline/results.js';
import { customerWriter, NO_STORE, tenantOf } from '../customer-http.js';
import { decodeCursor, encodeCursor } from '../seq-cursor.js';
import { GET_SUPPORT_CUSTOMER_API, GET_TICKET_API, LIST_TICKETS_API, PUT_TICKET_API } from './support-api.js';
import type { TicketPriority, TicketStatus } from './support-ticket.js';
import { SUPPORT_TICKETS } from './support-tickets.js';

type TicketBody = { subject: string; description?: string | null; status: TicketStatus; priority: TicketPriority };

/**
 * `GET /v1/customers/{customerId}/support` (the history summed up), `PUT|GET
 * …/support/tickets/{ticketId}` and `GET …/support/tickets` (the history, newest first).
 */
export function mapSupportEndpoints(v1: EndpointGroup): void {
  v1.get<BoundRequest>(
    '/customers/{customerId}/support',
    async ({ http, args }) => {
      const summary = await http.services
        .resolve(SUPPORT_TICKETS)
        .summary(tenantOf(http.originalPath), args.params.customerId!);
      if (!summary) throw noHistory(args.params.customerId!);
      return Results.json(summary, 200, NO_STORE);
    },
    describedEndpoint(GET_SUPPORT_CUSTOMER_API),
  );

  v1.put<BoundRequest<Record<string, never>, TicketBody>>(
    '/customers/{customerId}/support/tickets/{ticketId}',
    async ({ http, args }) => {
      const { subject, description = null, status, priority } = args.body;
      const { ticket, created } = await http.services
        .resolve(SUPPORT_TICKETS)
        .put(tenantOf(http.originalPath), args.params.customerId!, args.params.ticketId!, {
          subject,
          description,
          status,
          priority,
        });
      return Results.json(ticket, created ? 201 : 200, NO_STORE);
    },
    describedEndpoint(PUT_TICKET_API, { metadata: { policies: [customerWriter] } }),
  );

  v1.get<BoundRequest>(
    '/customers/{customerId}/support/tickets/{ticketId}',
    async ({ http, args }) => {
      const { customerId, ticketId } = args.params as { customerId: string; ticketId: string };
      const ticket = await http.services
        .resolve(SUPPORT_TICKETS)
        .get(tenantOf(http.originalPath), customerId, ticketId);
      if (!ticket)
        throw new HubError('CUSTOMERS_NOT_FOUND', `Support has no ticket ${ticketId} of customer ${customerId}.`);
      return Results.json(ticket, 200, NO_STORE);
    },
    describedEndpoint(GET_TICKET_API),
  );

  v1.get<BoundRequest<{ cursor?: string; limit?: number }>>(
    '/customers/{customerId}/support/tickets',
    async ({ http, args }) => {
      const { cursor, limit = 50 } = args.query;
      const page = await http.services
        .resolve(SUPPORT_TICKETS)
        .tickets(
          tenantOf(http.originalPath),
          args.params.customerId!,
          cursor === undefined ? undefined : decodeCursor('t', cursor),
          limit,
        );
      if (!page) throw noHistory(args.params.customerId!);
      return Results.json(
        { items: page.items, nextCursor: page.lastSeq === undefined ? null : encodeCursor('t', page.lastSeq) },
        200,
        NO_STORE,
      );
    },
    describedEndpoint(LIST_TICKETS_API),
  );
}

function noHistory(customerId: string): HubError {
  return new HubError('CUSTOMERS_NOT_FOUND', `Support has no ticket of customer ${customerId}.`);
}
