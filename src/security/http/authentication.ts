import type { HttpContext } from '../../host/pipeline/http-context.js';
import type { Middleware, RequestDelegate } from '../../host/pipeline/middleware.js';
import { readSessionCookie, SESSION_COOKIE_NAME } from '../cookie.js';
import { bearerToken, type JwtVerifier } from '../jwt-bearer.js';
import type { Principal } from '../principal.js';
import { runWithTenant } from '../tenant-context.js';
import { setAuthenticationResult, type AuthenticationResult } from './authentication-result.js';

export interface AuthenticationOptions {
  /** Verifies bearer tokens (`Authorization: Bearer`, or `access_token` on WebSocket / SSE requests). */
  bearer: JwtVerifier;
  /** The `hub_session` cookie scheme; omitted → cookies are ignored. */
  cookie?: { secret: string };
  /** Clock for cookie expiry, epoch ms. Default `Date.now`. */
  now?: () => number;
}

type Credential = { scheme: 'bearer'; token: string | null } | { scheme: 'cookie' } | null;

/**
 * Runs the default scheme and sets `ctx.user` to the Principal, or null. Never rejects (spec
 * "Authentication" 2): the endpoint's policies decide, and the reason a credential was refused is
 * kept on the context for the challenge. The rest of the request runs in the user's tenant context.
 *
 * Scheme selection: a bearer token wins; otherwise the session cookie. An invalid bearer token does
 * not fall back to the cookie, so a client always learns that the token it sent is bad.
 */
export function authentication(options: AuthenticationOptions): Middleware {
  const { bearer, cookie, now = Date.now } = options;
  // Only a bearer token needs a promise (its verification may fetch keys); the rest is synchronous.
  const verifyBearer = async (ctx: HttpContext, token: string, next: RequestDelegate): Promise<void> => {
    const verified = await bearer.verify(token);
    return authenticated(ctx, verified.ok ? verified.principal : null, verified.ok ? { scheme: 'bearer' } : { scheme: 'bearer', failure: verified.reason }, next);
  };
  return (ctx, next) => {
    const credential = findCredential(ctx, cookie !== undefined);
    // Nothing presented: anonymous, which is also what authenticationResultOf() answers by default.
    if (credential === null) return next(ctx);
    if (credential.scheme === 'bearer') {
      if (credential.token !== null) return verifyBearer(ctx, credential.token, next);
      return authenticated(ctx, null, { scheme: 'bearer', failure: 'malformed' }, next);
    }
    const principal = readSessionCookie(ctx.headers.cookie, cookie!.secret, now());
    return authenticated(ctx, principal, principal ? { scheme: 'cookie' } : { scheme: 'cookie', failure: 'invalid_cookie' }, next);
  };
}

/** Records the outcome and runs the rest of the request, in the user's tenant when signed in. */
function authenticated(ctx: HttpContext, principal: Principal | null, result: AuthenticationResult, next: RequestDelegate): Promise<void> {
  if (result.failure) ctx.log.debug({ scheme: result.scheme, reason: result.failure }, 'authentication failed');
  ctx.user = principal;
  setAuthenticationResult(ctx, result);
  if (!principal) return next(ctx);
  return runWithTenant(principal.tenantId, () => next(ctx));
}

function findCredential(ctx: HttpContext, cookies: boolean): Credential {
  const authorization = ctx.headers.authorization;
  if (authorization !== undefined && /^bearer(\s|$)/i.test(authorization)) {
    return { scheme: 'bearer', token: bearerToken(authorization) };
  }
  // Browsers cannot set headers on WebSocket or EventSource requests; anywhere else a token in the
  // URL would end up in logs and proxies, so it is ignored.
  if (ctx.upgrade !== undefined || acceptsEventStream(ctx)) {
    const queryToken = ctx.query.get('access_token');
    if (queryToken !== null) return { scheme: 'bearer', token: queryToken };
  }
  if (cookies && hasSessionCookie(ctx.headers.cookie)) return { scheme: 'cookie' };
  return null;
}

function acceptsEventStream(ctx: HttpContext): boolean {
  return ctx.method === 'GET' && (ctx.headers.accept ?? '').toLowerCase().includes('text/event-stream');
}

const SESSION_COOKIE = new RegExp(`(?:^|;)\\s*${SESSION_COOKIE_NAME}=`);

function hasSessionCookie(header: string | undefined): boolean {
  return header !== undefined && SESSION_COOKIE.test(header);
}
