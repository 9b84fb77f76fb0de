import { serviceKey } from '../../../host/container/service-key.js';
import type { Lead, LeadValues } from './lead.js';

/** The sales context's leads, one tenant per call (the port; the database one is DatabaseSalesLeads). */
export interface SalesLeads {
  get(tenantId: string, customerId: string): Promise<Lead | undefined>;
  /** Creates or replaces the lead; `created` says which. */
  put(tenantId: string, customerId: string, values: LeadValues): Promise<{ lead: Lead; created: boolean }>;
}

export const SALES_LEADS = serviceKey<SalesLeads>('salesLeads');
