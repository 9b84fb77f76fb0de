import type { HttpContext } from '../../pipeline/http-context.js';
import { canAccessDevice, type DeviceAccess, type Policy } from '../authorization.js';

/**
 * Policy for endpoints whose route carries a tenant, e.g.
 * `requireDeviceAccess((ctx) => ctx.routeValues['tenantId'])`: users read devices of their own
 * tenant; `manage` also needs role `admin`. A route without a tenant is forbidden.
 */
export function requireDeviceAccess(
  getTenant: (ctx: HttpContext) => string | undefined,
  access: DeviceAccess = 'read',
): Policy<HttpContext> {
  return (principal, ctx) => {
    if (!principal) return 'challenge';
    const tenantId = getTenant(ctx);
    return tenantId !== undefined && canAccessDevice(principal, tenantId, access) ? 'allow' : 'forbid';
  };
}
