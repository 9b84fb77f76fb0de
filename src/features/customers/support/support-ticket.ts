import { HubError } from '../../../host/errors.js';

export const TICKET_STATUSES = ['open', 'pending', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

/** Open and pending tickets wait for someone; resolved ones may be reopened; closed ones are final. */
export const WAITING_STATUSES: readonly TicketStatus[] = ['open', 'pending'];

/** What a client writes: the whole ticket (full-state PUT; an absent description becomes null). */
export interface TicketValues {
  readonly subject: string;
  readonly description: string | null;
  readonly status: TicketStatus;
  readonly priority: TicketPriority;
}

/**
 * One ticket of a customer's history. `openedAt` is when it was first written, `closedAt` when it was
 * closed (null until then); `version` is 1 when created and one more per accepted PUT.
 */
export interface Ticket extends TicketValues {
  readonly ticketId: string;
  readonly customerId: string;
  readonly openedAt: string;
  readonly closedAt: string | null;
  readonly version: number;
}

/** The Customer as support sees it: its ticket history, summed up (the tickets are listed apart). */
export interface SupportCustomer {
  readonly customerId: string;
  readonly ticketCount: number;
  /** Tickets open or pending. */
  readonly waitingTickets: number;
}

/** A closed ticket is the record of what happened: 409 on any change. */
export function checkChangeable(ticket: Ticket): void {
  if (ticket.status === 'closed') {
    throw new HubError(
      'CUSTOMERS_TICKET_CLOSED',
      `Ticket ${ticket.ticketId} of customer ${ticket.customerId} is closed; it can no longer change.`,
    );
  }
}
