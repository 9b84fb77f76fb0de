import { hasRole, type Principal } from './principal.js';

/**
 * The outcome of authorization (spec "Authentication" 5–6): `challenge` when nobody is signed in
 * (bearer → 401), `forbid` when the signed-in user is not allowed (bearer → 403).
 */
export type PolicyDecision = 'allow' | 'challenge' | 'forbid';

/** One rule of an endpoint; `resource` is whatever the endpoint protects (e.g. the request). */
export type Policy<R = unknown> = (principal: Principal | null, resource: R) => PolicyDecision;

/** Role that may manage (create, change, delete) devices of its own tenant. */
export const ADMIN_ROLE = 'admin';

/** Allows any authenticated user. */
export const requireAuthenticated: Policy = (principal) => (principal ? 'allow' : 'challenge');

/** Allows users holding `role`. */
export function requireRole(role: string): Policy {
  return (principal) => (!principal ? 'challenge' : hasRole(principal, role) ? 'allow' : 'forbid');
}

/**
 * Allows users of the tenant the resource belongs to. A resource without a tenant is forbidden:
 * "no tenant" must never match a user by accident.
 */
export function requireTenant<R>(getTenantFromRequest: (resource: R) => string | undefined): Policy<R> {
  return (principal, resource) => {
    if (!principal) return 'challenge';
    const tenantId = getTenantFromRequest(resource);
    return tenantId !== undefined && tenantId === principal.tenantId ? 'allow' : 'forbid';
  };
}

/**
 * Evaluates all policies of an endpoint; an empty list allows anonymous access. The first failing
 * policy decides, and its result is made to follow the spec whatever the policy returned:
 * nobody signed in → challenge, signed in → forbid.
 */
export function evaluatePolicies<R>(
  policies: readonly Policy<R>[],
  principal: Principal | null,
  resource: R,
): PolicyDecision {
  for (const policy of policies) {
    if (policy(principal, resource) !== 'allow') return principal ? 'forbid' : 'challenge';
  }
  return 'allow';
}

/** What a user wants to do with a device. */
export type DeviceAccess = 'read' | 'manage';

/**
 * Contract: "A user may read devices of its own tenant; role admin may also manage devices."
 * Our reading: "also" adds an action, not a reach. Tenants are the isolation boundary, so every
 * access (read or manage) requires the device's tenant to be the user's own; `admin` additionally
 * allows managing there. No role grants access to another tenant's devices.
 * Default `access` is `read`.
 */
export function canAccessDevice(principal: Principal | null, tenantId: string, access: DeviceAccess = 'read'): boolean {
  if (!principal || principal.tenantId !== tenantId) return false;
  return access === 'read' || hasRole(principal, ADMIN_ROLE);
}
