import { acceptsQueryToken, isBearerScheme, presentedCredentials, type Credential } from '../../edge/credentials.js';
import type { HttpContext } from '../../pipeline/http-context.js';
import type { Middleware, RequestDelegate } from '../../pipeline/middleware.js';
import { HANDSHAKE_PATHS } from '../../edge/handshake-paths.js';
import { SESSION_COOKIE_NAME } from '../cookie.js';
import { identify, userCredentialCheck, type Identification } from '../identify.js';
import type { JwtVerifier } from '../jwt-bearer.js';
import type { Principal } from '../principal.js';
import { runWithTenant } from '../tenant-context.js';
import { setAuthenticationResult, type AuthenticationResult } from './authentication-result.js';
import { crossOriginCookieRequest } from './cross-origin-cookie.js';
import { systemClock } from '../../clock.js';

export interface AuthenticationOptions {
  /** Verifies bearer tokens (`Authorization: Bearer`, or `access_token` on handshakes: see presentedCredentials). */
  bearer: JwtVerifier;
  /** The `hub_session` cookie scheme; omitted → cookies are ignored. */
  cookie?: { secret: string };
  /** Clock for cookie expiry, epoch ms. Default the system clock. */
  now?: () => number;
}

/**
 * Runs the default scheme and sets `ctx.user` to the Principal, or null. Never rejects (spec
 * "Authentication" 2): the endpoint's policies decide, and the reason a credential was refused is
 * kept on the context for the challenge. The rest of the request runs in the user's tenant context.
 *
 * The credential is the one `presentedCredentials` chooses — the same rule the gateway routes by:
 * an `Authorization` header alone when present (malformed → refused, no fall-back), else the query
 * token on handshakes, else the session cookie. Credentials of two tenants in one request are
 * refused. A cookie on an unsafe method from another origin is refused (cross-site request forgery).
 */
export function authentication(options: AuthenticationOptions): Middleware {
  const { bearer, cookie, now = systemClock.now } = options;
  const check = userCredentialCheck({ bearer, cookieSecret: cookie?.secret, now });
  const cookieName = cookie !== undefined ? SESSION_COOKIE_NAME : undefined;
  const identified = (ctx: HttpContext, next: RequestDelegate) => (who: Identification<Principal>) => {
    if (who.kind === 'refused') return authenticated(ctx, null, refusal(ctx, who), next);
    if (who.kind === 'anonymous') return next(ctx);
    if (who.credential.kind === 'cookie' && crossOriginCookieRequest(ctx)) {
      return authenticated(ctx, null, { scheme: 'cookie', failure: 'cross_origin' }, next);
    }
    return authenticated(ctx, who.identity, { scheme: schemeOf(who.credential) }, next);
  };
  return (ctx, next) => {
    const queryToken = acceptsQueryToken(ctx, HANDSHAKE_PATHS);
    const presented = presentedCredentials(
      ctx.headers,
      queryToken ? ctx.query : '',
      cookieName !== undefined ? { queryToken, cookieName } : { queryToken },
    );
    // Nothing presented: anonymous, which is also what authenticationResultOf() answers by default.
    if (presented.chosen === null && !presented.malformed) return next(ctx);
    return identify(presented, check).then(identified(ctx, next));
  };
}

function schemeOf(credential: Credential): 'bearer' | 'cookie' {
  return credential.kind === 'cookie' ? 'cookie' : 'bearer';
}

/**
 * A refused credential, for the challenge: `Authorization` of another scheme (Basic …) is no bearer
 * token at all, so its challenge names no `invalid_token` (RFC 6750 3.1).
 */
function refusal(ctx: HttpContext, who: Extract<Identification<Principal>, { kind: 'refused' }>): AuthenticationResult {
  if (who.credential !== null) return { scheme: schemeOf(who.credential), failure: who.reason };
  const authorization = ctx.headers.authorization;
  const otherScheme = authorization !== undefined && !isBearerScheme(authorization);
  return otherScheme ? { scheme: null, failure: 'unsupported_scheme' } : { scheme: 'bearer', failure: who.reason };
}

/** Records the outcome and runs the rest of the request, in the user's tenant when signed in. */
function authenticated(
  ctx: HttpContext,
  principal: Principal | null,
  result: AuthenticationResult,
  next: RequestDelegate,
): Promise<void> {
  if (result.failure) ctx.log.debug({ scheme: result.scheme, reason: result.failure }, 'authentication failed');
  ctx.user = principal;
  setAuthenticationResult(ctx, result);
  if (!principal) return next(ctx);
  return runWithTenant(principal.tenantId, () => next(ctx));
}
