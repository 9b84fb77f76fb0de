import type { HttpContext } from '../../pipeline/http-context.js';
import type { Middleware } from '../../pipeline/middleware.js';
import { isPreflight, preflightTarget } from '../../pipeline/preflight.js';
import type { CorsHeaders, CorsPolicy } from '../cors-policy.js';
import type { CorsPolicies } from '../cors-policies.js';

/** The policy the first pass used, kept for re-execution at the error path (whose endpoint is /error's). */
const USED: unique symbol = Symbol('cors policy used');

/**
 * Endpoint-aware CORS (spec "CORS preflight", "What the service does" 6). Place it after routing and
 * before authentication: it reads the policy of the selected endpoint (`CorsPolicies.resolve`).
 *
 * A preflight is answered for the endpoint the actual request would reach (routing's preflight
 * target): with a policy, 204 here, no further, so it needs no credentials; for a disallowed origin,
 * method or header the 204 carries no CORS headers and the browser never sends the request. Without
 * a policy (`cors: false`, no default, or no endpoint for that method and path) it is refused: it
 * goes on as a plain OPTIONS request, which routing answers 405 (or 404), with no CORS headers.
 *
 * Actual responses get `Access-Control-Allow-Origin` for allowed origins and `Vary: Origin`. Placed
 * after the exception handler, error problems carry the headers of the failed endpoint's policy too.
 */
export function cors(policies: CorsPolicies): Middleware {
  return async (ctx, next) => {
    const origin = header(ctx, 'origin');
    if (isPreflight(ctx)) {
      const target = preflightTarget(ctx);
      const policy = policies.resolve(target);
      if (target === null || policy === null) {
        ctx.log.debug({ origin, target: target?.displayName ?? null }, 'cors preflight refused: no policy');
        return next(ctx);
      }
      const allowed = policy.preflight(
        origin,
        header(ctx, 'access-control-request-method'),
        header(ctx, 'access-control-request-headers'),
      );
      if (!allowed) ctx.log.debug({ origin, endpoint: target.displayName }, 'cors preflight refused');
      ctx.response.status = 204;
      apply(ctx, allowed ?? { Vary: 'Origin' });
      return;
    }
    const policy = policyOf(ctx, policies);
    if (policy === null) return next(ctx);
    const headers = policy.actual(origin);
    // Before next, for an endpoint that hands the raw response on (socket.io's polling); after it
    // again, because the exception handler clears headers before re-executing.
    apply(ctx, headers);
    await next(ctx);
    if (!ctx.response.hijacked) apply(ctx, headers);
  };
}

function policyOf(ctx: HttpContext, policies: CorsPolicies): CorsPolicy | null {
  if (ctx.error !== undefined && ctx.items.has(USED)) return ctx.items.get(USED) as CorsPolicy | null;
  const policy = policies.resolve(ctx.endpoint);
  // The error endpoint has the default: only another policy needs remembering (most requests keep no items).
  if (policy !== policies.resolve(null)) ctx.items.set(USED, policy);
  return policy;
}

function apply(ctx: HttpContext, headers: CorsHeaders): void {
  for (const name in headers) {
    if (name.toLowerCase() === 'vary') ctx.response.appendVary(headers[name]!);
    else ctx.response.setHeader(name, headers[name]!);
  }
}

function header(ctx: HttpContext, name: string): string | undefined {
  const value = ctx.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
