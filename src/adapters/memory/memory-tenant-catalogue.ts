import type { TenantCatalogue } from '../../features/gateway/tenant-catalogue.js';

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
