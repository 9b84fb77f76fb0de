import type { Database, Sql } from '../storage/database.js';
import { addToOutbox } from '../outbox/outbox.js';
import { Order, type OrderLine, type OrderState } from './order.js';

/** What one accepted change announces: committed in the same transaction as the change (the outbox). */
export interface ChangeAnnouncement {
  /** Whatever goes with the order to the outbox, e.g. `traceparent`; `tenant_id` is added. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface OffsetPage {
  readonly items: OrderState[];
  readonly total: number;
}

export interface CursorPage {
  readonly items: OrderState[];
  /** The tenant's own number (`seq`) of the last item when more may follow, else undefined. */
  readonly lastSeq: number | undefined;
}

interface Row {
  order_id: string;
  customer_id: string;
  status: 'draft' | 'confirmed';
  total: string | number;
  version: number;
  seq: string | number;
  lines: OrderLine[] | string;
}

const SELECT = `
  select o.order_id, o.customer_id, o.status, o.total, o.version, o.seq,
    coalesce((select json_agg(json_build_object('sku', l.sku, 'quantity', l.quantity, 'unitPrice', l.unit_price) order by l.line_no)
              from order_lines l where l.tenant_id = o.tenant_id and l.order_id = o.order_id), '[]'::json) as lines
  from orders o`;

/**
 * Orders in the database, one tenant per unit of work (row-level security on every statement).
 * A change loads the aggregate under a row lock, lets the root decide, writes it back with its lines,
 * and adds the outbox message, all in one transaction: the message exists exactly when the change does.
 */
export class OrderStore {
  constructor(private readonly db: Database) {}

  /**
   * Applies `decide` to the current order (undefined when new) and stores the result with its outbox
   * message. Errors thrown by `decide` (the root's rules) roll everything back.
   */
  async change(
    tenantId: string,
    orderId: string,
    decide: (current: Order | undefined) => Order,
    announce: ChangeAnnouncement,
  ): Promise<OrderState> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.withTenant(tenantId, async (sql) => {
          const { rows } = await sql.query<Row>(`${SELECT} where o.order_id = $1 for update of o`, [orderId]);
          const current = rows[0] ? Order.restore(toState(rows[0])) : undefined;
          const next = decide(current).toJSON();
          if (current === undefined) {
            await sql.query(
              `insert into orders (tenant_id, order_id, customer_id, status, total, version) values ($1, $2, $3, $4, $5, $6)`,
              [tenantId, next.orderId, next.customerId, next.status, next.total, next.version],
            );
          } else {
            await sql.query(
              `update orders set customer_id = $2, status = $3, total = $4, version = $5, updated_at = now() where order_id = $1`,
              [next.orderId, next.customerId, next.status, next.total, next.version],
            );
            await sql.query(`delete from order_lines where order_id = $1`, [next.orderId]);
          }
          await insertLines(sql, tenantId, next);
          await addToOutbox(sql, tenantId, { type: 'order.changed', order: next }, announce.headers);
          return next;
        });
      } catch (err) {
        // Two first PUTs of one new order raced to insert it: the loser retries as an update.
        if (attempt < 3 && (err as { code?: string }).code === '23505') continue;
        throw err;
      }
    }
  }

  async get(tenantId: string, orderId: string): Promise<OrderState | undefined> {
    return this.db.withTenant(tenantId, async (sql) => {
      const { rows } = await sql.query<Row>(`${SELECT} where o.order_id = $1`, [orderId]);
      return rows[0] ? toState(rows[0]) : undefined;
    });
  }

  /** Newest first, skipping `offset`: an order created between two requests shifts every later page by one. */
  async pageByOffset(tenantId: string, offset: number, limit: number): Promise<OffsetPage> {
    return this.db.withTenant(tenantId, async (sql) => {
      const { rows } = await sql.query<Row>(`${SELECT} order by o.seq desc offset $1 limit $2`, [offset, limit]);
      const count = await sql.query<{ n: string | number }>(`select count(*) as n from orders`);
      return { items: rows.map(toState), total: Number(count.rows[0]!.n) };
    });
  }

  /**
   * Newest first, strictly older than `before` (a `seq`: the tenant's own count of its orders, so it
   * says nothing of other tenants): what was created since cannot shift it.
   */
  async pageBefore(tenantId: string, before: number | undefined, limit: number): Promise<CursorPage> {
    return this.db.withTenant(tenantId, async (sql) => {
      const { rows } = await sql.query<Row>(
        before === undefined
          ? `${SELECT} order by o.seq desc limit $1`
          : `${SELECT} where o.seq < $2 order by o.seq desc limit $1`,
        before === undefined ? [limit + 1] : [limit + 1, before],
      );
      const page = rows.slice(0, limit);
      return { items: page.map(toState), lastSeq: rows.length > limit ? Number(page.at(-1)!.seq) : undefined };
    });
  }
}

async function insertLines(sql: Sql, tenantId: string, order: OrderState): Promise<void> {
  if (order.lines.length === 0) return;
  // The whole list as one JSON parameter: one round trip, no SQL built from values.
  const lines = order.lines.map((l, i) => ({
    line_no: i + 1,
    sku: l.sku,
    quantity: l.quantity,
    unit_price: l.unitPrice,
  }));
  await sql.query(
    `insert into order_lines (tenant_id, order_id, line_no, sku, quantity, unit_price)
     select $1, $2, l.line_no, l.sku, l.quantity, l.unit_price
     from json_to_recordset($3::json) as l(line_no integer, sku text, quantity integer, unit_price bigint)`,
    [tenantId, order.orderId, JSON.stringify(lines)],
  );
}

function toState(row: Row): OrderState {
  return {
    orderId: row.order_id,
    customerId: row.customer_id,
    status: row.status,
    lines: typeof row.lines === 'string' ? (JSON.parse(row.lines) as OrderLine[]) : row.lines,
    total: Number(row.total),
    version: Number(row.version),
  };
}
