import { ambient as storage } from '../ambient.js';
import { isValidId } from '../ids.js';

/** Header (and message property) name carrying the tenant across hops (spec "Tenant context across hops"). */
export const TENANT_HEADER = 'tenant_id';

/**
 * Runs `fn` with `tenantId` as the tenant of everything it does, including awaited and scheduled
 * work it starts. Throws on an id that is not a contract id, because it will be sent to other hops.
 */
export function runWithTenant<T>(tenantId: string, fn: () => T): T {
  if (!isValidId(tenantId)) throw new TypeError('tenant id is not a valid id');
  return storage.run({ tenantId, trace: storage.getStore()?.trace }, fn);
}

/** The tenant of the current request or message, or undefined outside `runWithTenant`. */
export function currentTenant(): string | undefined {
  return storage.getStore()?.tenantId;
}

/**
 * Headers an outbound call or queue message carries so the next hop can restore the tenant.
 * Empty outside a tenant context (system work such as health checks has no tenant).
 * Note: proxies such as nginx drop header names with underscores unless told otherwise.
 */
export function tenantHeaders(): { tenant_id?: string } {
  const tenantId = storage.getStore()?.tenantId;
  return tenantId === undefined ? {} : { [TENANT_HEADER]: tenantId };
}

/**
 * The tenant carried by incoming message headers (worker side), or undefined when absent, invalid or
 * ambiguous (several differing values). Header names are matched case-insensitively, as HTTP does.
 */
export function tenantFromHeaders(headers: Record<string, unknown>): string | undefined {
  const values = new Set<unknown>();
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() !== TENANT_HEADER) continue;
    for (const v of Array.isArray(value) ? value : [value]) values.add(v);
  }
  const [only] = values;
  return values.size === 1 && isValidId(only) ? only : undefined;
}
