/**
 * The tenant catalogue of the global router: which stamp serves a tenant. Not tenant-scoped data
 * (the router reads it before any tenant is known), so a database implementation reads it as the
 * system, never under a tenant's row-level security.
 */
export interface TenantCatalogue {
  /** The stamp's name, or undefined for a tenant the catalogue does not know. */
  stampOf(tenantId: string): Promise<string | undefined>;
}
