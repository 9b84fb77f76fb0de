import type { HttpContext } from '../../host/pipeline/http-context.js';
import type { Middleware } from '../../host/pipeline/middleware.js';
import type { CorsPolicy } from '../cors-policy.js';

/**
 * CORS on the pipeline (spec "CORS preflight"). A preflight is answered 204 here and goes no further,
 * so it needs no credentials; for a disallowed origin, method or header the 204 carries no CORS headers
 * and the browser never sends the actual request. Actual responses get `Access-Control-Allow-Origin`
 * for allowed origins and always `Vary: Origin`. Place it before authentication; placed after the
 * exception handler, error problems carry the headers too, so pages can read them.
 */
export function cors(policy: CorsPolicy): Middleware {
  // Most requests (same origin, servers, devices) send no Origin: their headers are the same every time.
  const noOrigin = Object.entries(policy.actual(undefined));
  return async (ctx, next) => {
    const origin = header(ctx, 'origin');
    if (ctx.method === 'OPTIONS' && origin !== undefined && header(ctx, 'access-control-request-method') !== undefined) {
      const allowed = policy.preflight(origin, header(ctx, 'access-control-request-method'), header(ctx, 'access-control-request-headers'));
      if (!allowed) ctx.log.debug({ origin }, 'cors preflight refused');
      ctx.response.status = 204;
      apply(ctx, Object.entries(allowed ?? { Vary: 'Origin' }));
      return;
    }
    const headers = origin === undefined ? noOrigin : Object.entries(policy.actual(origin));
    // Before next, for an endpoint that hands the raw response on (socket.io's polling); after it
    // again, because the exception handler clears headers before re-executing.
    apply(ctx, headers);
    await next(ctx);
    if (!ctx.response.hijacked) apply(ctx, headers);
  };
}

function apply(ctx: HttpContext, headers: readonly (readonly [string, string])[]): void {
  for (const [name, value] of headers) {
    if (name.toLowerCase() === 'vary') ctx.response.appendVary(value);
    else ctx.response.setHeader(name, value);
  }
}

function header(ctx: HttpContext, name: string): string | undefined {
  const value = ctx.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
