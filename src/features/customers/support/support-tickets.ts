import { serviceKey } from '../../../host/container/service-key.js';
import type { SupportCustomer, Ticket, TicketValues } from './support-ticket.js';

export interface TicketPage {
  /** Newest opened first. */
  readonly items: Ticket[];
  /** The customer's own number of the last item when more may follow, else undefined. */
  readonly lastSeq: number | undefined;
}

/** The support context's ticket histories, one tenant per call (the port; the database one is DatabaseSupportTickets). */
export interface SupportTickets {
  /** Undefined when the customer has no ticket. */
  summary(tenantId: string, customerId: string): Promise<SupportCustomer | undefined>;
  get(tenantId: string, customerId: string, ticketId: string): Promise<Ticket | undefined>;
  /** Opens (created) or replaces a ticket; HUB_ERR_CUSTOMERS_TICKET_CLOSED when it is closed. */
  put(
    tenantId: string,
    customerId: string,
    ticketId: string,
    values: TicketValues,
  ): Promise<{ ticket: Ticket; created: boolean }>;
  /** Tickets opened before `beforeSeq` (all when undefined); undefined when the customer has none. */
  tickets(
    tenantId: string,
    customerId: string,
    beforeSeq: number | undefined,
    limit: number,
  ): Promise<TicketPage | undefined>;
}

export const SUPPORT_TICKETS = serviceKey<SupportTickets>('supportTickets');
