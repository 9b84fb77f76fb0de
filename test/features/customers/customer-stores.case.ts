/**
 * The customer stores of the four bounded contexts over the Database seam, run on both engines:
 * each context keeps its own aggregate under the customer id, tenant by tenant (row-level security),
 * with the rules its root holds (stage time, currency lock, append-only payments, final tickets).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE, type Database } from '../../../src/features/storage/database.js';
import { registerCustomerStores } from '../../../src/compose/customers-wiring.js';
import { ServiceCollection } from '../../../src/host/container/service-collection.js';
import { BILLING_ACCOUNTS, type BillingAccounts } from '../../../src/features/customers/billing/billing-accounts.js';
import {
  DELIVERY_ADDRESSES,
  type DeliveryAddresses,
} from '../../../src/features/customers/fulfilment/delivery-addresses.js';
import { SALES_LEADS, type SalesLeads } from '../../../src/features/customers/sales/sales-leads.js';
import { SUPPORT_TICKETS, type SupportTickets } from '../../../src/features/customers/support/support-tickets.js';
import type { DeliveryAddress } from '../../../src/features/customers/fulfilment/delivery-address.js';
import { eventually } from '../../support/app-harness.js';

interface CustomerStores {
  readonly sales: SalesLeads;
  readonly fulfilment: DeliveryAddresses;
  readonly billing: BillingAccounts;
  readonly support: SupportTickets;
}

/** Each context's store as the hub registers it, on the database under test. */
function customerStores(database: Database): CustomerStores {
  const services = registerCustomerStores(new ServiceCollection().instance(DATABASE, database)).build();
  return {
    sales: services.resolve(SALES_LEADS),
    fulfilment: services.resolve(DELIVERY_ADDRESSES),
    billing: services.resolve(BILLING_ACCOUNTS),
    support: services.resolve(SUPPORT_TICKETS),
  };
}

export interface StoresUnderTest {
  database: Database;
  dispose(): Promise<void>;
}

const CUSTOMER_TABLES = [
  'billing_accounts',
  'billing_payments',
  'delivery_addresses',
  'sales_leads',
  'support_customers',
  'support_tickets',
];

export const ADDRESS: DeliveryAddress = {
  recipient: 'Ada Lovelace',
  line1: '12 Analytical Row',
  line2: null,
  city: 'London',
  region: null,
  postalCode: 'EC1A 1BB',
  country: 'GB',
  phone: '+44 20 7946 0000',
};

export function runCustomerStoresContract(name: string, create: () => Promise<StoresUnderTest>): void {
  describe(`${name} (customer stores)`, () => {
    let subject: StoresUnderTest;
    let stores: CustomerStores;
    beforeAll(async () => {
      subject = await create();
      stores = customerStores(subject.database);
    });
    afterAll(async () => {
      await subject?.dispose();
    });

    it('sales: a lead is created, then replaced; stageSince moves only when the stage does', async () => {
      const first = await stores.sales.put('acme', 'cust-s', {
        name: 'Ada',
        company: null,
        email: 'ada@example.com',
        stage: 'new',
      });
      expect(first).toMatchObject({
        created: true,
        lead: { customerId: 'cust-s', name: 'Ada', company: null, stage: 'new', version: 1 },
      });
      expect(first.lead.stageSince).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      const renamed = await stores.sales.put('acme', 'cust-s', {
        name: 'Ada L.',
        company: 'Engines Ltd',
        email: null,
        stage: 'new',
      });
      expect(renamed).toMatchObject({
        created: false,
        lead: { name: 'Ada L.', company: 'Engines Ltd', email: null, version: 2, stageSince: first.lead.stageSince },
      });
      // stageSince is now() of the writing transaction, in milliseconds: let the clock pass it first.
      await eventually(
        async () =>
          (
            await subject.database.withSystem((sql) =>
              sql.query<{ later: boolean }>(`select now() > $1::timestamptz as later`, [first.lead.stageSince]),
            )
          ).rows[0]!.later,
        5000,
        'the database clock to move',
      );
      const moved = await stores.sales.put('acme', 'cust-s', {
        name: 'Ada L.',
        company: 'Engines Ltd',
        email: null,
        stage: 'qualified',
      });
      expect(moved.lead.stage).toBe('qualified');
      expect(Date.parse(moved.lead.stageSince)).toBeGreaterThan(Date.parse(first.lead.stageSince));
      expect(await stores.sales.get('acme', 'cust-s')).toEqual(moved.lead);
    });

    it('fulfilment: the address is stored whole and read back by customer id', async () => {
      expect(await stores.fulfilment.get('acme', 'cust-f')).toBeUndefined();
      const put = await stores.fulfilment.put('acme', 'cust-f', ADDRESS);
      expect(put).toEqual({ created: true, customer: { customerId: 'cust-f', deliveryAddress: ADDRESS, version: 1 } });
      const moved = { ...ADDRESS, line1: '1 New Street', line2: 'Flat 2', region: 'Greater London' };
      expect(await stores.fulfilment.put('acme', 'cust-f', moved)).toEqual({
        created: false,
        customer: { customerId: 'cust-f', deliveryAddress: moved, version: 2 },
      });
      expect((await stores.fulfilment.get('acme', 'cust-f'))?.deliveryAddress).toEqual(moved);
    });

    it('the same customer id in two contexts is two aggregates: one knowing it says nothing of the other', async () => {
      await stores.sales.put('acme', 'cust-only-sales', { name: 'Lead', company: null, email: null, stage: 'new' });
      expect(await stores.fulfilment.get('acme', 'cust-only-sales')).toBeUndefined();
      expect(await stores.billing.get('acme', 'cust-only-sales')).toBeUndefined();
      expect(await stores.support.summary('acme', 'cust-only-sales')).toBeUndefined();
    });

    it("a tenant never sees another tenant's customer, and the same id is its own there", async () => {
      await stores.fulfilment.put('acme', 'cust-t', ADDRESS);
      await stores.billing.put('acme', 'cust-t', { creditLimit: 500_00, currency: 'EUR' });
      await stores.support.put('acme', 'cust-t', 'tk-1', {
        subject: 'Gateway offline',
        description: null,
        status: 'open',
        priority: 'high',
      });
      await stores.sales.put('acme', 'cust-t', { name: 'Acme lead', company: null, email: null, stage: 'won' });
      expect(await stores.fulfilment.get('globex', 'cust-t')).toBeUndefined();
      expect(await stores.billing.get('globex', 'cust-t')).toBeUndefined();
      expect(await stores.billing.payments('globex', 'cust-t', undefined, 10)).toBeUndefined();
      expect(await stores.support.summary('globex', 'cust-t')).toBeUndefined();
      expect(await stores.support.get('globex', 'cust-t', 'tk-1')).toBeUndefined();
      expect(await stores.sales.get('globex', 'cust-t')).toBeUndefined();
      // globex's cust-t starts at version 1, and acme's is untouched.
      expect(
        (await stores.sales.put('globex', 'cust-t', { name: 'Globex lead', company: null, email: null, stage: 'new' }))
          .created,
      ).toBe(true);
      expect((await stores.sales.get('acme', 'cust-t'))?.name).toBe('Acme lead');
    });

    it("every customer table has row-level security ENABLEd and FORCEd; a tenant reads none of another tenant's rows", async () => {
      const flags = await subject.database.withSystem(
        async (sql) =>
          (
            await sql.query<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
              `select relname, relrowsecurity, relforcerowsecurity from pg_class where relname = any($1) and relkind = 'r' order by relname`,
              [CUSTOMER_TABLES],
            )
          ).rows,
      );
      expect(flags).toEqual(
        CUSTOMER_TABLES.map((relname) => ({ relname, relrowsecurity: true, relforcerowsecurity: true })),
      );
      for (const table of CUSTOMER_TABLES) {
        const seen = await subject.database.withTenant(
          'initech',
          async (sql) => (await sql.query(`select 1 from ${table}`)).rows.length,
        );
        expect(seen, table).toBe(0);
        const system = await subject.database.withSystem(
          async (sql) => (await sql.query(`select 1 from ${table}`)).rows.length,
        );
        expect(system, table).toBe(0);
      }
      // Writing a row for another tenant by hand is refused, not silently filed under it.
      await expect(
        subject.database.withTenant('acme', (sql) =>
          sql.query(
            `insert into sales_leads (tenant_id, customer_id, name, stage, version) values ('globex', 'planted', 'x', 'new', 1)`,
          ),
        ),
      ).rejects.toThrow(/row-level security/);
    });

    it('billing: payments are appended under the account, numbered, idempotent by id, never changed', async () => {
      await expect(
        stores.billing.recordPayment('acme', 'cust-b', 'pay-0', { amount: 100, paidOn: '2025-01-02', reference: null }),
      ).rejects.toMatchObject({
        code: 'HUB_ERR_CUSTOMERS_NOT_FOUND',
      });
      expect(await stores.billing.put('acme', 'cust-b', { creditLimit: 1_000_00, currency: 'EUR' })).toMatchObject({
        created: true,
        account: { paymentCount: 0, version: 1 },
      });
      const pay = { amount: 250_00, paidOn: '2025-03-01', reference: 'INV-1' };
      expect(await stores.billing.recordPayment('acme', 'cust-b', 'pay-1', pay)).toEqual({
        created: true,
        payment: { paymentId: 'pay-1', ...pay },
      });
      // A retry answers the recorded payment and records nothing.
      expect(await stores.billing.recordPayment('acme', 'cust-b', 'pay-1', pay)).toEqual({
        created: false,
        payment: { paymentId: 'pay-1', ...pay },
      });
      await expect(
        stores.billing.recordPayment('acme', 'cust-b', 'pay-1', { ...pay, amount: 1 }),
      ).rejects.toMatchObject({ code: 'HUB_ERR_CUSTOMERS_PAYMENT_CONFLICT' });
      expect(await stores.billing.get('acme', 'cust-b')).toMatchObject({
        creditLimit: 1_000_00,
        currency: 'EUR',
        paymentCount: 1,
        version: 2,
      });
      // The app role may not rewrite history even by hand.
      await expect(
        subject.database.withTenant('acme', (sql) => sql.query(`update billing_payments set amount = 1`)),
      ).rejects.toThrow(/permission denied/);
      await expect(
        subject.database.withTenant('acme', (sql) => sql.query(`delete from billing_payments`)),
      ).rejects.toThrow(/permission denied/);
    });

    it('billing: the credit limit changes any time, the currency only while no payment is recorded', async () => {
      await stores.billing.put('acme', 'cust-c', { creditLimit: 0, currency: 'USD' });
      expect((await stores.billing.put('acme', 'cust-c', { creditLimit: 10, currency: 'EUR' })).account.currency).toBe(
        'EUR',
      );
      await stores.billing.recordPayment('acme', 'cust-c', 'p1', { amount: 5, paidOn: '2025-01-01', reference: null });
      await expect(stores.billing.put('acme', 'cust-c', { creditLimit: 10, currency: 'USD' })).rejects.toMatchObject({
        code: 'HUB_ERR_CUSTOMERS_CURRENCY_LOCKED',
      });
      expect(await stores.billing.put('acme', 'cust-c', { creditLimit: 99_999, currency: 'EUR' })).toMatchObject({
        created: false,
        account: { creditLimit: 99_999, currency: 'EUR', paymentCount: 1 },
      });
    });

    it('billing: concurrent payments each get their own number; the history pages newest first without repeat or skip', async () => {
      await stores.billing.put('acme', 'cust-p', { creditLimit: 0, currency: 'EUR' });
      await Promise.all(
        Array.from({ length: 7 }, (_, i) =>
          stores.billing.recordPayment('acme', 'cust-p', `p-${i}`, {
            amount: i + 1,
            paidOn: '2025-05-05',
            reference: null,
          }),
        ),
      );
      expect((await stores.billing.get('acme', 'cust-p'))?.paymentCount).toBe(7);
      const seen: string[] = [];
      let before: number | undefined;
      for (;;) {
        const page = (await stores.billing.payments('acme', 'cust-p', before, 3))!;
        seen.push(...page.items.map((p) => p.paymentId));
        if (page.lastSeq === undefined) break;
        before = page.lastSeq;
        // Recorded between two pages: it is newer, so it belongs to no later page.
        if (seen.length === 3)
          await stores.billing.recordPayment('acme', 'cust-p', 'late', {
            amount: 1,
            paidOn: '2025-05-06',
            reference: null,
          });
      }
      expect(seen).toHaveLength(7);
      expect(new Set(seen).size).toBe(7);
      expect((await stores.billing.payments('acme', 'cust-p', undefined, 1))!.items[0]!.paymentId).toBe('late');
    });

    it('support: tickets open and change under the customer; a closed ticket is final; the summary counts what waits', async () => {
      const opened = await stores.support.put('acme', 'cust-h', 'tk-1', {
        subject: 'No readings',
        description: 'Since 9:00.\nTwo sensors.',
        status: 'open',
        priority: 'urgent',
      });
      expect(opened).toMatchObject({
        created: true,
        ticket: { ticketId: 'tk-1', customerId: 'cust-h', status: 'open', closedAt: null, version: 1 },
      });
      await stores.support.put('acme', 'cust-h', 'tk-2', {
        subject: 'Invoice copy',
        description: null,
        status: 'pending',
        priority: 'low',
      });
      expect(await stores.support.summary('acme', 'cust-h')).toEqual({
        customerId: 'cust-h',
        ticketCount: 2,
        waitingTickets: 2,
      });
      const closed = await stores.support.put('acme', 'cust-h', 'tk-1', {
        subject: 'No readings',
        description: 'Fixed: gateway restarted.',
        status: 'closed',
        priority: 'urgent',
      });
      expect(closed.ticket).toMatchObject({ status: 'closed', version: 2, openedAt: opened.ticket.openedAt });
      expect(closed.ticket.closedAt).toMatch(/Z$/);
      await expect(
        stores.support.put('acme', 'cust-h', 'tk-1', {
          subject: 'Reopen',
          description: null,
          status: 'open',
          priority: 'low',
        }),
      ).rejects.toMatchObject({
        code: 'HUB_ERR_CUSTOMERS_TICKET_CLOSED',
      });
      expect((await stores.support.get('acme', 'cust-h', 'tk-1'))?.description).toBe('Fixed: gateway restarted.');
      // Resolved is not final: it may be reopened.
      await stores.support.put('acme', 'cust-h', 'tk-2', {
        subject: 'Invoice copy',
        description: null,
        status: 'resolved',
        priority: 'low',
      });
      expect(
        (
          await stores.support.put('acme', 'cust-h', 'tk-2', {
            subject: 'Invoice copy',
            description: null,
            status: 'open',
            priority: 'low',
          })
        ).ticket.version,
      ).toBe(3);
      expect(await stores.support.summary('acme', 'cust-h')).toEqual({
        customerId: 'cust-h',
        ticketCount: 2,
        waitingTickets: 1,
      });
      const page = (await stores.support.tickets('acme', 'cust-h', undefined, 1))!;
      expect(page.items.map((t) => t.ticketId)).toEqual(['tk-2']);
      expect((await stores.support.tickets('acme', 'cust-h', page.lastSeq, 10))!).toEqual({
        items: [expect.objectContaining({ ticketId: 'tk-1' })],
        lastSeq: undefined,
      });
    });

    it('support: a refused change leaves no trace, not even the root of a customer it would have created', async () => {
      await expect(
        stores.support.put('acme', 'cust-x', 'tk-bad', {
          subject: 'x'.repeat(201),
          description: null,
          status: 'open',
          priority: 'low',
        }),
      ).rejects.toThrow(/check constraint/);
      expect(await stores.support.summary('acme', 'cust-x')).toBeUndefined();
    });
  });
}
