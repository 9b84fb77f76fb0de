import { isValidId } from '../ids.js';

/** How the request proved who it is. */
export type AuthScheme = 'bearer' | 'cookie';

/** The authenticated user of a request (contract "User tokens"). */
export interface Principal {
  sub: string;
  tenantId: string;
  roles: string[];
  scheme: AuthScheme;
  /** When the credential stops being valid, epoch milliseconds. */
  expiresAt?: number;
}

/** Why a set of claims does not describe a valid principal. */
export type PrincipalFieldError = 'invalid_subject' | 'invalid_tenant' | 'invalid_roles';

/** Longest `sub` accepted: it ends up in logs and connection ids, so unbounded input is refused. */
const MAX_SUB_LENGTH = 256;
const MAX_ROLES = 64;
const MAX_ROLE_LENGTH = 128;

/**
 * Checks untrusted identity fields (from a token or a cookie) and builds a Principal.
 * `roles` may be absent (a user without roles); when present it must be an array of non-empty strings.
 * `tenantId` must be a contract id, because it is embedded in group names such as `device:{tenant}:{device}`.
 */
export function principalFromFields(
  fields: { sub: unknown; tenantId: unknown; roles: unknown },
  scheme: AuthScheme,
  expiresAt?: number,
): { ok: true; principal: Principal } | { ok: false; reason: PrincipalFieldError } {
  const { sub, tenantId, roles } = fields;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_SUB_LENGTH) {
    return { ok: false, reason: 'invalid_subject' };
  }
  if (!isValidId(tenantId)) return { ok: false, reason: 'invalid_tenant' };
  const roleList = roles === undefined ? [] : roles;
  if (!isRoleList(roleList)) return { ok: false, reason: 'invalid_roles' };
  const principal: Principal = { sub, tenantId, roles: [...new Set(roleList)], scheme };
  if (expiresAt !== undefined) principal.expiresAt = expiresAt;
  return { ok: true, principal };
}

/** True when the principal carries the role (exact, case-sensitive match). */
export function hasRole(principal: Principal, role: string): boolean {
  return principal.roles.includes(role);
}

function isRoleList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length <= MAX_ROLES &&
    value.every((r) => typeof r === 'string' && r.length > 0 && r.length <= MAX_ROLE_LENGTH)
  );
}
