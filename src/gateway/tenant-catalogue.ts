/**
 * The tenant catalogue of the global router: which stamp serves a tenant. Not tenant-scoped data
 * (the router reads it before any tenant is known), so a database implementation reads it as the
 * system, never under a tenant's row-level security.
 */
export interface TenantCatalogue {
  /** The stamp's name, or undefined for a tenant the catalogue does not know. */
  stampOf(tenantId: string): Promise<string | undefined>;
}

/** The catalogue held in memory (from `Gateway:Tenants`, or built by tests). */
export class MemoryTenantCatalogue implements TenantCatalogue {
  readonly #map: Map<string, string>;

  constructor(entries: Iterable<readonly [tenant: string, stamp: string]> = []) {
    this.#map = new Map(entries);
  }

  /** Assigns (or moves) a tenant to a stamp. */
  assign(tenantId: string, stamp: string): void {
    this.#map.set(tenantId, stamp);
  }

  async stampOf(tenantId: string): Promise<string | undefined> {
    return this.#map.get(tenantId);
  }
}
