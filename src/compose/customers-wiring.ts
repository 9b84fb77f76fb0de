import { DatabaseBillingAccounts } from '../features/customers/billing/database-billing-accounts.js';
import { BILLING_ACCOUNTS } from '../features/customers/billing/billing-accounts.js';
import { DatabaseDeliveryAddresses } from '../features/customers/fulfilment/database-delivery-addresses.js';
import { DELIVERY_ADDRESSES } from '../features/customers/fulfilment/delivery-addresses.js';
import { DatabaseSalesLeads } from '../features/customers/sales/database-sales-leads.js';
import { SALES_LEADS } from '../features/customers/sales/sales-leads.js';
import { DatabaseSupportTickets } from '../features/customers/support/database-support-tickets.js';
import { SUPPORT_TICKETS } from '../features/customers/support/support-tickets.js';
import { DATABASE } from '../features/storage/database.js';
import type { ServiceCollection } from '../host/container/service-collection.js';

/**
 * One store per bounded context, each on the one database (in its own tables); nothing is shared
 * between them but the customer id. The endpoints and the fulfilment worker resolve them.
 */
export function registerCustomerStores(registrations: ServiceCollection): ServiceCollection {
  return registrations
    .singleton(SALES_LEADS, [DATABASE], (db) => new DatabaseSalesLeads(db))
    .singleton(DELIVERY_ADDRESSES, [DATABASE], (db) => new DatabaseDeliveryAddresses(db))
    .singleton(BILLING_ACCOUNTS, [DATABASE], (db) => new DatabaseBillingAccounts(db))
    .singleton(SUPPORT_TICKETS, [DATABASE], (db) => new DatabaseSupportTickets(db));
}
