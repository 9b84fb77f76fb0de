import { serviceKey } from '../../../host/container/service-key.js';
import type { BillingAccount, BillingValues, Payment, PaymentValues } from './billing-account.js';

export interface PaymentPage {
  /** Newest recorded first. */
  readonly items: Payment[];
  /** The account's own number of the last item when more may follow, else undefined. */
  readonly lastSeq: number | undefined;
}

/** The billing context's accounts, one tenant per call (the port; the database one is DatabaseBillingAccounts). */
export interface BillingAccounts {
  get(tenantId: string, customerId: string): Promise<BillingAccount | undefined>;
  /** Creates or replaces limit and currency; HUB_ERR_CUSTOMERS_CURRENCY_LOCKED when payments exist in another currency. */
  put(
    tenantId: string,
    customerId: string,
    values: BillingValues,
  ): Promise<{ account: BillingAccount; created: boolean }>;
  /**
   * Appends a payment (created), or answers the one recorded under this id before (a retry). Throws
   * HUB_ERR_CUSTOMERS_NOT_FOUND without an account, HUB_ERR_CUSTOMERS_PAYMENT_CONFLICT when the id is
   * recorded with other values.
   */
  recordPayment(
    tenantId: string,
    customerId: string,
    paymentId: string,
    values: PaymentValues,
  ): Promise<{ payment: Payment; created: boolean }>;
  /** Payments recorded before `beforeSeq` (all when undefined); undefined when there is no account. */
  payments(
    tenantId: string,
    customerId: string,
    beforeSeq: number | undefined,
    limit: number,
  ): Promise<PaymentPage | undefined>;
}

export const BILLING_ACCOUNTS = serviceKey<BillingAccounts>('billingAccounts');
