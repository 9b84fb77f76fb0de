import { Errors } from '../../errors.js';
import type { HttpContext } from '../../pipeline/http-context.js';
import { DONE, type Middleware, type RequestDelegate } from '../../pipeline/middleware.js';
import { Results } from '../../pipeline/results.js';
import { retryAfterSeconds, type RateLimiter, type RateLimitResult } from '../rate-limit/rate-limiter.js';
import { securityMetadata } from './security-metadata.js';

/** A named limit: a limiter (created once per middleware) and what partitions it. */
export interface RateLimitPolicy {
  /** Called once when the middleware is built, so every pipeline has its own counters. */
  createLimiter: () => RateLimiter;
  /** The partition of a request, e.g. `byClientIp`, `byUser`, `byTenant`. */
  partitionKey: (ctx: HttpContext) => string;
}

export interface RateLimitingOptions {
  /** Applies to every endpoint (not to `rateLimit: false` ones), before the endpoint's policy. */
  global?: RateLimitPolicy;
  /** Policies endpoints name in metadata `rateLimit: 'name'`. */
  policies: Record<string, RateLimitPolicy>;
}

interface Built {
  name: string;
  limiter: RateLimiter;
  partitionKey: (ctx: HttpContext) => string;
}

/**
 * Rate limiting on the pipeline. Place it after routing (it reads the endpoint's `rateLimit`) and
 * after authentication (partitions by user or tenant). A rejection answers 429 problem+json
 * (HUB_ERR_RATE_LIMITED) with `Retry-After` in whole seconds when the limiter knows when (not for
 * concurrency limits). Leases (concurrency) are released when the rest of the pipeline finishes,
 * whether it succeeded or threw; for a WebSocket upgrade that is when the handshake is handled.
 */
export function rateLimiting(options: RateLimitingOptions): Middleware {
  const global = options.global ? build('global', options.global) : undefined;
  const policies = new Map(Object.entries(options.policies).map(([name, p]) => [name, build(name, p)]));
  const withLeases = async (ctx: HttpContext, next: RequestDelegate, releases: Array<() => void>): Promise<void> => {
    try {
      await next(ctx);
    } finally {
      for (const release of releases.reverse()) release();
    }
  };
  return (ctx, next) => {
    const { rateLimit } = securityMetadata(ctx.endpoint);
    if (rateLimit === false) return next(ctx);
    let endpointPolicy: Built | undefined;
    if (rateLimit !== undefined) {
      endpointPolicy = policies.get(rateLimit);
      // A typo in metadata must not silently leave an endpoint unlimited.
      if (!endpointPolicy) throw new Error(`unknown rate limit policy "${rateLimit}" on ${ctx.endpoint!.displayName}`);
    }
    let releases: Array<() => void> | undefined;
    for (const policy of [global, endpointPolicy]) {
      if (!policy) continue;
      const result = policy.limiter.tryAcquire(policy.partitionKey(ctx));
      if (!result.ok) {
        if (releases) for (const release of releases.reverse()) release();
        reject(ctx, policy.name, result);
        return DONE;
      }
      if (result.release) (releases ??= []).push(result.release);
    }
    // Counters only (no lease to give back): the rest of the request needs no wrapper.
    return releases ? withLeases(ctx, next, releases) : next(ctx);
  };
}

function build(name: string, policy: RateLimitPolicy): Built {
  return { name, limiter: policy.createLimiter(), partitionKey: policy.partitionKey };
}

function reject(ctx: HttpContext, policy: string, result: Extract<RateLimitResult, { ok: false }>): void {
  ctx.log.info({ policy, endpoint: ctx.endpoint?.displayName ?? null }, 'rate limited');
  const headers: Record<string, string> = {};
  const extensions: Record<string, unknown> = { policy };
  if (result.retryAfterMs !== undefined) {
    const seconds = retryAfterSeconds(result.retryAfterMs);
    headers['retry-after'] = String(seconds);
    extensions['retryAfterSeconds'] = seconds;
  }
  Results.problem(Errors.RATE_LIMITED, 'Too many requests; try again later.', extensions, headers).execute(ctx);
}
