import type { HttpContext } from '../../host/pipeline/http-context.js';

/**
 * A named output-cache policy, set in code (never by the request: a `Cache-Control` request header
 * changes nothing). An endpoint opts in with metadata `outputCache: '<policy name>'`.
 * The key always holds the tenant, so one tenant's cached response is never served to another.
 */
export interface OutputCachePolicy {
  readonly name: string;
  /** How long a stored response is served. */
  readonly durationMs: number;
  /** Query keys that make a different entry; others are ignored. Default: every key. */
  readonly varyByQuery?: readonly string[];
  /** Route values that make a different entry. Default: every route value. */
  readonly varyByRoute?: readonly string[];
  /** Tags the entry is stored with, for eviction (e.g. `firmware:{tenant}`). */
  readonly tags?: (ctx: HttpContext, tenantId: string | undefined) => readonly string[];
}

/** Endpoint metadata key naming the endpoint's output-cache policy. */
export const OUTPUT_CACHE_METADATA = 'outputCache';

/**
 * The entry's key: tenant, policy, endpoint, then the varied route and query values, each part
 * length-prefixed so no crafted value can make two different requests share a key.
 */
export function outputCacheKey(policy: OutputCachePolicy, ctx: HttpContext, tenantId: string | undefined): string {
  const routeNames = policy.varyByRoute ?? Object.keys(ctx.routeValues).sort();
  const queryNames = policy.varyByQuery ?? [...new Set(ctx.query.keys())].sort();
  const parts = [policy.name, ctx.endpoint?.displayName ?? ctx.path];
  for (const name of routeNames) parts.push(name, ctx.routeValues[name] ?? '');
  for (const name of queryNames) parts.push(name, ctx.query.getAll(name).join('\u0000'));
  const body = parts.map((p) => `${p.length}:${p}`).join('');
  // The tenant leads in clear, so `tenant:{id}` entries can be found and counted per tenant.
  return `${tenantId ?? '-'}:${body}`;
}
