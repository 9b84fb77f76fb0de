import type { HttpContext } from '../../host/pipeline/http-context.js';
import type { Middleware } from '../../host/pipeline/middleware.js';
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
  return async (ctx, next) => {
    const credential = findCredential(ctx, cookie !== undefined);
    let principal: Principal | null = null;
    const result: AuthenticationResult = { scheme: credential?.scheme ?? null };
    if (credential?.scheme === 'bearer') {
      const verified = credential.token === null ? ({ ok: false, reason: 'malformed' } as const) : await bearer.verify(credential.token);
      if (verified.ok) principal = verified.principal;
      else result.failure = verified.reason;
    } else if (credential?.scheme === 'cookie') {
      principal = readSessionCookie(ctx.headers.cookie, cookie!.secret, now());
      if (!principal) result.failure = 'invalid_cookie';
    }
    if (result.failure) ctx.log.debug({ scheme: result.scheme, reason: result.failure }, 'authentication failed');
    ctx.user = principal;
    setAuthenticationResult(ctx, result);
    if (!principal) return next();
    return runWithTenant(principal.tenantId, next);
  };
}

function findCredential(ctx: HttpContext, cookies: boolean): Credential {
  const authorization = ctx.headers.authorization;
  if (authorization !== undefined && /^bearer(\s|$)/i.test(authorization)) {
    return { scheme: 'bearer', token: bearerToken(authorization) };
  }
  // Browsers cannot set headers on WebSocket or EventSource requests; anywhere else a token in the
  // URL would end up in logs and proxies, so it is ignored.
  const queryToken = ctx.query.get('access_token');
  if (queryToken !== null && (ctx.upgrade !== undefined || acceptsEventStream(ctx))) {
    return { scheme: 'bearer', token: queryToken };
  }
  if (cookies && hasSessionCookie(ctx.headers.cookie)) return { scheme: 'cookie' };
  return null;
}

function acceptsEventStream(ctx: HttpContext): boolean {
  return ctx.method === 'GET' && (ctx.headers.accept ?? '').toLowerCase().includes('text/event-stream');
}

function hasSessionCookie(header: string | undefined): boolean {
  return header !== undefined && new RegExp(`(?:^|;)\\s*${SESSION_COOKIE_NAME}=`).test(header);
}
