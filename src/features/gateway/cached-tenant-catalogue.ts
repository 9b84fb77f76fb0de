import type { Clock } from '../../host/clock.js';
import type { TenantCatalogue } from './tenant-catalogue.js';

interface Entry {
  readonly stamp: Promise<string | undefined>;
  readonly expiresAt: number;
}

/**
 * A catalogue in front of a slower one (the database): each answer, unknown tenants included, is
 * kept for `ttlMs`, so a tenant moved to another stamp is routed there within that time. Lookups of
 * one tenant in flight together share one query. At most `maxEntries` are kept (the oldest goes
 * first), so a flood of made-up tenant ids cannot grow memory.
 */
export class CachedTenantCatalogue implements TenantCatalogue {
  readonly #inner: TenantCatalogue;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Entry>();

  constructor(options: { inner: TenantCatalogue; ttlMs: number; clock: Clock; maxEntries?: number }) {
    this.#inner = options.inner;
    this.#ttlMs = options.ttlMs;
    this.#clock = options.clock;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  stampOf(tenantId: string): Promise<string | undefined> {
    const now = this.#clock.monotonicNow();
    const hit = this.#entries.get(tenantId);
    if (hit !== undefined && hit.expiresAt > now) return hit.stamp;
    this.#entries.delete(tenantId);
    const stamp = this.#inner.stampOf(tenantId);
    // A failed lookup is not remembered: the next request asks again.
    stamp.catch(() => {
      if (this.#entries.get(tenantId)?.stamp === stamp) this.#entries.delete(tenantId);
    });
    this.#entries.set(tenantId, { stamp, expiresAt: now + this.#ttlMs });
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    return stamp;
  }
}
