import { Errors } from '../../errors.js';
import type { HttpContext } from '../../pipeline/http-context.js';
import { Results } from '../../pipeline/results.js';
import type { Principal } from '../principal.js';
import { authenticationResultOf } from './authentication-result.js';
import { securityMetadata } from './security-metadata.js';

/** Where browser pages (metadata `page: true`) send users instead of answering 401 / 403. */
export interface PageRedirects {
  /** Gets `?returnUrl=<path and query>`. */
  signInPath: string;
  accessDeniedPath: string;
}

/**
 * Nobody is signed in (spec "Authentication" 5). A page reached without a bearer token redirects to
 * sign-in (cookie scheme); everything else gets 401 with `WWW-Authenticate: Bearer`, plus
 * `error="invalid_token"` (RFC 6750) when the bearer token sent was refused.
 */
export function challenge(ctx: HttpContext, pages: PageRedirects | undefined): void {
  const { scheme, failure } = authenticationResultOf(ctx);
  if (failure === 'cross_origin') {
    // The session is fine; the page that sent the request is not ours (cross-site request forgery).
    Results.problem(Errors.AUTH_FORBIDDEN, 'A request from another origin cannot use the session cookie.').execute(ctx);
    return;
  }
  if (pages && isPage(ctx) && scheme !== 'bearer') {
    redirect(ctx, `${pages.signInPath}?returnUrl=${encodeURIComponent(returnUrl(ctx))}`);
    return;
  }
  if (scheme === 'bearer' && failure !== undefined) {
    // The reason stays in the log: telling a caller why its forged token failed only helps the forger.
    Results.problem(Errors.AUTH_INVALID_TOKEN, 'The access token is not valid for this service.', undefined, {
      'www-authenticate': 'Bearer error="invalid_token"',
    }).execute(ctx);
    return;
  }
  Results.problem(Errors.AUTH_UNAUTHENTICATED, 'This endpoint requires an access token.', undefined, {
    'www-authenticate': 'Bearer',
  }).execute(ctx);
}

/** The signed-in user is not allowed (spec "Authentication" 6): 403, or the access-denied page for cookie users on pages. */
export function forbid(ctx: HttpContext, principal: Principal, pages: PageRedirects | undefined): void {
  if (pages && isPage(ctx) && principal.scheme === 'cookie') {
    redirect(ctx, pages.accessDeniedPath);
    return;
  }
  Results.problem(Errors.AUTH_FORBIDDEN, 'You are not allowed to access this resource.').execute(ctx);
}

function isPage(ctx: HttpContext): boolean {
  // A WebSocket handshake cannot follow a redirect.
  return ctx.upgrade === undefined && securityMetadata(ctx.endpoint).page === true;
}

function redirect(ctx: HttpContext, location: string): void {
  Results.status(302, { location, 'cache-control': 'no-store' }).execute(ctx);
}

function returnUrl(ctx: HttpContext): string {
  const query = ctx.query.toString();
  return query ? `${ctx.originalPath}?${query}` : ctx.originalPath;
}
