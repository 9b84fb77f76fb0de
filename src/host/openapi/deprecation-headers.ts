import type { HttpContext } from '../pipeline/http-context.js';
import type { Middleware, RequestDelegate } from '../pipeline/middleware.js';
import { apiOf } from './api-description.js';

/**
 * Marks every answer of a deprecated endpoint: `Deprecation: @<epoch seconds>` (RFC 9745), `Sunset:
 * <HTTP-date>` (RFC 8594) when it has a removal date, and `Link: <notice>; rel="deprecation"`. Place
 * it after routing (it reads the selected endpoint); errors of the endpoint carry the headers too.
 */
export function deprecationHeaders(): Middleware {
  // The endpoint is selected before this runs: an endpoint that is not deprecated costs nothing here.
  return (ctx, next) => (apiOf(ctx.endpoint)?.deprecated === undefined ? next(ctx) : withHeaders(ctx, next));
}

async function withHeaders(ctx: HttpContext, next: RequestDelegate): Promise<void> {
  await next(ctx);
  const deprecated = apiOf(ctx.endpoint)?.deprecated;
  if (deprecated === undefined || ctx.response.hijacked) return;
  ctx.response.setHeader('deprecation', `@${Math.floor(deprecated.since.getTime() / 1000)}`);
  if (deprecated.sunset) ctx.response.setHeader('sunset', deprecated.sunset.toUTCString());
  if (deprecated.link) ctx.response.setHeader('link', `<${deprecated.link}>; rel="deprecation"; type="text/html"`);
}
