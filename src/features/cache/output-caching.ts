import type { Clock } from '../../host/clock.js';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import type { Middleware, RequestDelegate } from '../../host/pipeline/middleware.js';
import { currentTenant } from '../../host/security/tenant-context.js';
import type { CacheStore } from './cache-store.js';
import { bufferedBody, decodeCachedResponse, encodeCachedResponse } from './cached-response.js';
import { OUTPUT_CACHE_METADATA, outputCacheKey, type OutputCachePolicy } from './output-cache-policy.js';
import { answerNotModified, etagMatches } from './response-caching.js';

export interface OutputCachingOptions {
  store: CacheStore;
  policies: readonly OutputCachePolicy[];
  clock: Pick<Clock, 'now'>;
  /** Told when the store fails (Redis down): the request then runs the endpoint, as on a miss. */
  onStoreError?: (err: unknown) => void;
}

/** Headers that belong to one answer only and are never replayed from the cache. */
const NOT_STORED = new Set(['set-cookie', 'age', 'date', 'connection']);

/**
 * The output cache, before the endpoint (place it after authorization: a hit must never skip the
 * policy checks). For an endpoint whose metadata names a policy, a GET/HEAD answer 200 is stored
 * under a key of tenant, endpoint and the varied values; while fresh, the same request is answered
 * from the store and the endpoint does not run. The request's own Cache-Control is not consulted.
 * Place response caching after it: stored answers then carry their ETag, and a hit whose ETag the
 * request's If-None-Match holds is answered 304 here.
 */
export function outputCaching(options: OutputCachingOptions): Middleware {
  const { store, clock } = options;
  const policies = new Map(options.policies.map((p) => [p.name, p]));
  const onStoreError = options.onStoreError ?? (() => {});
  const throughCache = async (ctx: HttpContext, next: RequestDelegate, policy: OutputCachePolicy): Promise<void> => {
    const tenantId = currentTenant();
    const key = outputCacheKey(policy, ctx, tenantId);
    const hit = await store.get(key).catch((err: unknown) => void onStoreError(err));
    const cached = hit === undefined ? undefined : decodeCachedResponse(hit);
    if (cached !== undefined) {
      ctx.response.status = cached.status;
      for (const [name, value] of cached.headers) ctx.response.setHeader(name, value);
      ctx.response.setHeader('age', String(Math.max(0, Math.floor((clock.now() - cached.storedAt) / 1000))));
      ctx.response.body = cached.body;
      const etag = ctx.response.headers.get('etag');
      if (typeof etag === 'string' && etagMatches(ctx.headers['if-none-match'], etag)) answerNotModified(ctx);
      return;
    }
    // Headers set by middleware outside (CORS for this request's Origin) are theirs to set again
    // on every request; only what the endpoint and the steps after this one added is stored.
    const outer = new Map(ctx.response.headers);
    await next(ctx);
    const body = bufferedBody(ctx.response);
    if (
      ctx.response.status !== 200 ||
      body === undefined ||
      ctx.error !== undefined ||
      ctx.response.headers.has('set-cookie')
    )
      return;
    const headers = [...ctx.response.headers].filter(
      ([name, value]) => !NOT_STORED.has(name) && outer.get(name) !== value,
    );
    const entry = encodeCachedResponse({ status: 200, headers, body, storedAt: clock.now() });
    await store.set(key, entry, policy.durationMs, policy.tags?.(ctx, tenantId) ?? []).catch(onStoreError);
  };
  return (ctx, next) => {
    const policy = policyFor(ctx, policies);
    return policy === undefined ? next(ctx) : throughCache(ctx, next, policy);
  };
}

function policyFor(ctx: HttpContext, policies: ReadonlyMap<string, OutputCachePolicy>): OutputCachePolicy | undefined {
  if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.endpoint === null || ctx.error !== undefined)
    return undefined;
  const name = ctx.endpoint.metadata[OUTPUT_CACHE_METADATA];
  if (name === undefined) return undefined;
  const policy = typeof name === 'string' ? policies.get(name) : undefined;
  // A typo in code, not a request problem: fail loudly rather than silently never caching.
  if (policy === undefined)
    throw new TypeError(
      `${ctx.endpoint.displayName} names output-cache policy ${String(name)}, which is not registered`,
    );
  return policy;
}
