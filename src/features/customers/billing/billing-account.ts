import { HubError } from '../../../host/errors.js';

/** Amounts are integer minor units (cents) of the account's currency, never floating point. */
export const MAX_CREDIT_LIMIT = 1_000_000_000_000;
export const MAX_PAYMENT_AMOUNT = 1_000_000_000_000;

export interface BillingValues {
  readonly creditLimit: number;
  /** ISO 4217, upper case; fixed once a payment is recorded (the history is in it). */
  readonly currency: string;
}

/**
 * The Customer as billing sees it: a credit limit and the payment history. Payments are appended
 * through the account (never changed, never removed); `paymentCount` numbers them, `version` is 1
 * when created and one more per accepted change (a PUT, a new payment).
 */
export interface BillingAccount extends BillingValues {
  readonly customerId: string;
  readonly paymentCount: number;
  readonly version: number;
}

export interface PaymentValues {
  readonly amount: number;
  /** The day the money arrived, `YYYY-MM-DD`. */
  readonly paidOn: string;
  readonly reference: string | null;
}

export interface Payment extends PaymentValues {
  readonly paymentId: string;
}

/** 422 unless `paidOn` is a day of the calendar (the schema lets 2025-02-30 through). */
export function checkPaidOn(paidOn: string): void {
  const [y, m, d] = paidOn.split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  if (day.getUTCFullYear() !== y || day.getUTCMonth() !== m - 1 || day.getUTCDate() !== d) {
    throw new HubError('CUSTOMERS_INVALID', `${paidOn} is not a day of the calendar.`, {
      errors: { paidOn: 'must be a calendar day, YYYY-MM-DD' },
    });
  }
}

/**
 * A payment id names one payment forever: sending it again with the same values is a retry (the
 * recorded payment answers), with other values a conflict (409), since payments never change.
 */
export function checkReplay(recorded: Payment, sent: PaymentValues): void {
  if (recorded.amount !== sent.amount || recorded.paidOn !== sent.paidOn || recorded.reference !== sent.reference) {
    throw new HubError(
      'CUSTOMERS_PAYMENT_CONFLICT',
      `Payment ${recorded.paymentId} is recorded with other values; payments never change.`,
      { recorded },
    );
  }
}
