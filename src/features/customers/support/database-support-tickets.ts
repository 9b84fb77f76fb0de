import type { Database, Sql } from '../../storage/database.js';
import { instantSql } from '../customer-schemas.js';
import {
  checkChangeable,
  WAITING_STATUSES,
  type SupportCustomer,
  type Ticket,
  type TicketPriority,
  type TicketStatus,
  type TicketValues,
} from './support-ticket.js';
import type { SupportTickets, TicketPage } from './support-tickets.js';

interface TicketRow {
  ticket_id: string;
  customer_id: string;
  seq: number;
  subject: string;
  description: string | null;
  status: TicketStatus;
  priority: TicketPriority;
  opened_at: string;
  closed_at: string | null;
  version: number;
}

const TICKET = `ticket_id, customer_id, seq, subject, description, status, priority, ${instantSql('opened_at')} as opened_at, ${instantSql('closed_at')} as closed_at, version`;

/** Histories in `support_customers` (the root) and `support_tickets` (row-level security on both). */
export class DatabaseSupportTickets implements SupportTickets {
  constructor(private readonly db: Database) {}

  async summary(tenantId: string, customerId: string): Promise<SupportCustomer | undefined> {
    const { rows } = await this.db.withTenant(tenantId, (sql) =>
      sql.query<{ ticket_count: number; waiting: string | number }>(
        `select s.ticket_count, (select count(*) from support_tickets t where t.tenant_id = s.tenant_id and t.customer_id = s.customer_id and t.status = any($2)) as waiting
         from support_customers s where s.customer_id = $1`,
        [customerId, WAITING_STATUSES],
      ),
    );
    return (
      rows[0] && { customerId, ticketCount: Number(rows[0].ticket_count), waitingTickets: Number(rows[0].waiting) }
    );
  }

  async get(tenantId: string, customerId: string, ticketId: string): Promise<Ticket | undefined> {
    const { rows } = await this.db.withTenant(tenantId, (sql) => selectTicket(sql, customerId, ticketId));
    return rows[0] && toTicket(rows[0]);
  }

  async put(
    tenantId: string,
    customerId: string,
    ticketId: string,
    values: TicketValues,
  ): Promise<{ ticket: Ticket; created: boolean }> {
    return this.db.withTenant(tenantId, async (sql) => {
      // The root first, locked: it numbers the customer's tickets, and two first tickets wait for each other.
      await sql.query(
        `insert into support_customers (tenant_id, customer_id, ticket_count) values ($1, $2, 0) on conflict do nothing`,
        [tenantId, customerId],
      );
      const root = await sql.query<{ ticket_count: number }>(
        `select ticket_count from support_customers where customer_id = $1 for update`,
        [customerId],
      );
      const current = (await selectTicket(sql, customerId, ticketId)).rows[0];
      const { subject, description, status, priority } = values;
      if (current) {
        checkChangeable(toTicket(current));
        const { rows } = await sql.query<TicketRow>(
          `update support_tickets set subject = $3, description = $4, status = $5, priority = $6, version = version + 1, updated_at = now(),
             closed_at = case when $5 = 'closed' then now() end
           where customer_id = $1 and ticket_id = $2 returning ${TICKET}`,
          [customerId, ticketId, subject, description, status, priority],
        );
        return { ticket: toTicket(rows[0]!), created: false };
      }
      const seq = Number(root.rows[0]!.ticket_count) + 1;
      const { rows } = await sql.query<TicketRow>(
        `insert into support_tickets (tenant_id, customer_id, ticket_id, seq, subject, description, status, priority, version, closed_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, 1, case when $7 = 'closed' then now() end) returning ${TICKET}`,
        [tenantId, customerId, ticketId, seq, subject, description, status, priority],
      );
      await sql.query(`update support_customers set ticket_count = $2 where customer_id = $1`, [customerId, seq]);
      return { ticket: toTicket(rows[0]!), created: true };
    });
  }

  async tickets(
    tenantId: string,
    customerId: string,
    beforeSeq: number | undefined,
    limit: number,
  ): Promise<TicketPage | undefined> {
    return this.db.withTenant(tenantId, async (sql) => {
      const root = await sql.query(`select 1 from support_customers where customer_id = $1`, [customerId]);
      if (root.rows.length === 0) return undefined;
      const { rows } = await sql.query<TicketRow>(
        `select ${TICKET} from support_tickets where customer_id = $1 and ($2::integer is null or seq < $2) order by seq desc limit $3`,
        [customerId, beforeSeq ?? null, limit + 1],
      );
      const page = rows.slice(0, limit);
      return { items: page.map(toTicket), lastSeq: rows.length > limit ? Number(page.at(-1)!.seq) : undefined };
    });
  }
}

function selectTicket(sql: Sql, customerId: string, ticketId: string) {
  return sql.query<TicketRow>(`select ${TICKET} from support_tickets where customer_id = $1 and ticket_id = $2`, [
    customerId,
    ticketId,
  ]);
}

function toTicket(row: TicketRow): Ticket {
  return {
    ticketId: row.ticket_id,
    customerId: row.customer_id,
    subject: row.subject,
    description: row.description,
    status: row.status,
    priority: row.priority,
    openedAt: row.opened_at,
    closedAt: row.closed_at,
    version: Number(row.version),
  };
}
