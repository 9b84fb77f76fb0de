import type { Policy } from '../../host/security/authorization.js';
import { currentTenant } from '../../host/security/tenant-context.js';

/** Roles that may write a customer in any context: the roles that write orders. Reading needs a signed-in user. */
export const CUSTOMER_WRITER_ROLES = ['admin', 'buyer'] as const;

export const customerWriter: Policy = (principal) =>
  !principal
    ? 'challenge'
    : principal.roles.some((r) => (CUSTOMER_WRITER_ROLES as readonly string[]).includes(r))
      ? 'allow'
      : 'forbid';

/** Every customer answer is the caller's tenant's data: no shared cache may keep it. */
export const NO_STORE = { 'cache-control': 'private, no-store' };

/** The request's tenant (set by authentication; these endpoints require a signed-in user). */
export function tenantOf(path: string): string {
  const tenantId = currentTenant();
  if (tenantId === undefined) throw new Error(`${path} ran without a tenant context`);
  return tenantId;
}
