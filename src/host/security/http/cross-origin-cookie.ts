import type { HttpContext } from '../../pipeline/http-context.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * True when an unsafe request (POST, PUT, PATCH, DELETE …) comes from another origin, so a cookie it
 * carries must not authenticate it (cross-site request forgery). Browsers say where a request comes
 * from: `Sec-Fetch-Site` (`same-origin` or `none` pass), else `Origin`, which must be the hub's own
 * (as the edge identity resolves it). A request with neither did not come from a browser page, and a
 * forger cannot make a browser send one without them.
 */
export function crossOriginCookieRequest(ctx: HttpContext): boolean {
  if (SAFE_METHODS.has(ctx.method)) return false;
  const site = ctx.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = ctx.headers.origin;
  if (origin === undefined) return false;
  return origin.toLowerCase() !== ctx.origin.toLowerCase();
}
