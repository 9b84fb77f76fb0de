import { serviceKey } from '../container/service-key.js';

/**
 * The tenant of one request or one queue message, as a scoped service (spec "Tenant context across
 * hops" 2-3): fixed when first resolved in the scope, from the tenant authentication (or the worker,
 * from the message header) set for that unit of work. Undefined for anonymous work.
 */
export class TenantContext {
  constructor(readonly tenantId: string | undefined) {}

  /** The tenant of work that requires one (a signed-in user's request, a message with a valid header). */
  required(what: string): string {
    if (this.tenantId === undefined) throw new Error(`${what} ran without a tenant context`);
    return this.tenantId;
  }
}

export const TENANT_CONTEXT = serviceKey<TenantContext>('tenantContext');
