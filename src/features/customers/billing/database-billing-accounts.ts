import { HubError } from '../../../host/errors.js';
import type { Database } from '../../storage/database.js';
import {
  checkReplay,
  type BillingAccount,
  type BillingValues,
  type Payment,
  type PaymentValues,
} from './billing-account.js';
import type { BillingAccounts, PaymentPage } from './billing-accounts.js';

interface AccountRow {
  customer_id: string;
  credit_limit: string | number;
  currency: string;
  payment_count: number;
  version: number;
}

interface PaymentRow {
  payment_id: string;
  seq: number;
  amount: string | number;
  paid_on: string;
  reference: string | null;
}

const ACCOUNT = 'customer_id, credit_limit, currency, payment_count, version';
// The day as text: no driver turns it into a local midnight.
const PAYMENT = `payment_id, seq, amount, to_char(paid_on, 'YYYY-MM-DD') as paid_on, reference`;

/** Accounts in `billing_accounts`, payments in `billing_payments` (row-level security on both). */
export class DatabaseBillingAccounts implements BillingAccounts {
  constructor(private readonly db: Database) {}

  async get(tenantId: string, customerId: string): Promise<BillingAccount | undefined> {
    const { rows } = await this.db.withTenant(tenantId, (sql) =>
      sql.query<AccountRow>(`select ${ACCOUNT} from billing_accounts where customer_id = $1`, [customerId]),
    );
    return rows[0] && toAccount(rows[0]);
  }

  async put(
    tenantId: string,
    customerId: string,
    values: BillingValues,
  ): Promise<{ account: BillingAccount; created: boolean }> {
    // The currency rule in the statement itself: a concurrent first payment cannot slip between a
    // check and the write. No row back means the conflict arm refused the update.
    const { rows } = await this.db.withTenant(tenantId, (sql) =>
      sql.query<AccountRow>(
        `insert into billing_accounts (tenant_id, customer_id, credit_limit, currency, version) values ($1, $2, $3, $4, 1)
         on conflict (tenant_id, customer_id) do update set
           credit_limit = excluded.credit_limit, currency = excluded.currency, version = billing_accounts.version + 1, updated_at = now()
         where billing_accounts.payment_count = 0 or billing_accounts.currency = excluded.currency
         returning ${ACCOUNT}`,
        [tenantId, customerId, values.creditLimit, values.currency],
      ),
    );
    if (rows.length === 0) {
      throw new HubError(
        'CUSTOMERS_CURRENCY_LOCKED',
        `The billing account of ${customerId} has payments in another currency; its currency can no longer change.`,
      );
    }
    const account = toAccount(rows[0]!);
    return { account, created: account.version === 1 };
  }

  async recordPayment(
    tenantId: string,
    customerId: string,
    paymentId: string,
    values: PaymentValues,
  ): Promise<{ payment: Payment; created: boolean }> {
    return this.db.withTenant(tenantId, async (sql) => {
      // The account's row lock orders its payments: seq is its count, one more each.
      const account = await sql.query<AccountRow>(
        `select ${ACCOUNT} from billing_accounts where customer_id = $1 for update`,
        [customerId],
      );
      if (account.rows.length === 0)
        throw new HubError('CUSTOMERS_NOT_FOUND', `Billing has no account for customer ${customerId}; PUT it first.`);
      const recorded = await sql.query<PaymentRow>(
        `select ${PAYMENT} from billing_payments where customer_id = $1 and payment_id = $2`,
        [customerId, paymentId],
      );
      if (recorded.rows[0]) {
        const payment = toPayment(recorded.rows[0]);
        checkReplay(payment, values);
        return { payment, created: false };
      }
      const seq = Number(account.rows[0]!.payment_count) + 1;
      await sql.query(
        `insert into billing_payments (tenant_id, customer_id, payment_id, seq, amount, paid_on, reference) values ($1, $2, $3, $4, $5, $6, $7)`,
        [tenantId, customerId, paymentId, seq, values.amount, values.paidOn, values.reference],
      );
      await sql.query(
        `update billing_accounts set payment_count = $2, version = version + 1, updated_at = now() where customer_id = $1`,
        [customerId, seq],
      );
      return { payment: { paymentId, ...values }, created: true };
    });
  }

  async payments(
    tenantId: string,
    customerId: string,
    beforeSeq: number | undefined,
    limit: number,
  ): Promise<PaymentPage | undefined> {
    return this.db.withTenant(tenantId, async (sql) => {
      const account = await sql.query(`select 1 from billing_accounts where customer_id = $1`, [customerId]);
      if (account.rows.length === 0) return undefined;
      const { rows } = await sql.query<PaymentRow>(
        `select ${PAYMENT} from billing_payments where customer_id = $1 and ($2::integer is null or seq < $2) order by seq desc limit $3`,
        [customerId, beforeSeq ?? null, limit + 1],
      );
      const page = rows.slice(0, limit);
      return { items: page.map(toPayment), lastSeq: rows.length > limit ? Number(page.at(-1)!.seq) : undefined };
    });
  }
}

function toAccount(row: AccountRow): BillingAccount {
  return {
    customerId: row.customer_id,
    creditLimit: Number(row.credit_limit),
    currency: row.currency,
    paymentCount: Number(row.payment_count),
    version: Number(row.version),
  };
}

function toPayment(row: PaymentRow): Payment {
  return { paymentId: row.payment_id, amount: Number(row.amount), paidOn: row.paid_on, reference: row.reference };
}
