import { Errors } from '../../errors.js';
import type { EndpointGroup } from '../../pipeline/endpoint-builder.js';
import type { HttpContext } from '../../pipeline/http-context.js';
import { Results, type Result } from '../../pipeline/results.js';
import { clearSessionCookie, serializeSessionCookie } from '../cookie.js';
import { signUserToken } from '../jwt-bearer.js';
import { challenge } from './challenge.js';
import { RateLimitPolicies } from './default-rate-limit-policies.js';
import { principalOf } from './security-metadata.js';
import { systemClock } from '../../clock.js';

export interface SessionExchangeOptions {
  /** Signs the `hub_session` cookie; the same secret the authentication cookie scheme checks. */
  cookieSecret: string;
  /**
   * Signs the tokens of `GET /auth/token` (config `Auth:Jwt:*`, HS256). Omitted when the hub verifies
   * user tokens with a JWKS: it holds no key to sign with, so `/auth/token` is not mapped (404) and the
   * dashboard keeps using the token it signed in with.
   */
  mint?: { secret: string; issuer: string; audience: string };
  /** Longest session; a session never outlives the token it was created from. Default 8 hours. */
  sessionMaxAgeSeconds?: number;
  /** Lifetime of `/auth/token` tokens; never beyond the session. Default 900 (15 minutes). */
  tokenExpiresInSeconds?: number;
  /** Clock, epoch ms. Default the system clock. */
  now?: () => number;
}

export const SESSION_PATH = '/auth/session';
export const SESSION_TOKEN_PATH = '/auth/token';

const NO_STORE = { 'cache-control': 'no-store' };

/**
 * Exchanges a user token for a dashboard session, in every environment:
 * - `POST /auth/session` with `Authorization: Bearer <user token>` (checked by the authentication
 *   middleware's verifier, the one the API uses) → 204 and the signed, HttpOnly, SameSite=Lax
 *   `hub_session` cookie (Secure over https), expiring no later than the token; otherwise 401.
 *   Rate limited by the `signin` policy.
 * - `DELETE /auth/session` → 204, clears the cookie.
 * - `GET /auth/token` (only with `mint`) → `{ token, tenantId, sub, expiresAt }` for the session
 *   cookie's user: a short-lived HS256 bearer token for socket.io and negotiate; 401 without a valid session.
 *
 * CSRF: creating a session takes the token only from the `Authorization` header, never from a form
 * body or the query. A cross-site form cannot set that header, and a cross-site `fetch` that does
 * needs a CORS preflight, which only `Cors:AllowedOrigins` pass (and no origin gets
 * `Allow-Credentials`), so another site can neither sign a user in nor swap their session (login
 * CSRF); it would also need a valid token to send. `DELETE` likewise cannot come from a form.
 * `GET /auth/token` answers only same-site requests usefully: SameSite=Lax keeps the cookie off
 * cross-site subrequests, and other origins cannot read the response.
 */
export function mapSessionExchange(routes: EndpointGroup, options: SessionExchangeOptions): void {
  const { cookieSecret, mint, now = systemClock.now } = options;
  const sessionMaxAgeSeconds = options.sessionMaxAgeSeconds ?? 8 * 3600;
  const tokenExpiresInSeconds = options.tokenExpiresInSeconds ?? 900;
  for (const [name, value] of [
    ['sessionMaxAgeSeconds', sessionMaxAgeSeconds],
    ['tokenExpiresInSeconds', tokenExpiresInSeconds],
  ] as const) {
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer`);
  }

  routes.post(
    SESSION_PATH,
    ({ http }) => {
      const user = principalOf(http);
      // Only a bearer token creates a session: a cookie (the only credential a cross-site request
      // carries by itself) must not renew or extend one.
      if (user?.scheme !== 'bearer') return challengeResult();
      const at = now();
      const left = Math.floor(((user.expiresAt ?? at) - at) / 1000);
      // Accepted within the clock skew, but expired or about to: a session would be born dead.
      if (left < 1) return invalidToken();
      const maxAgeSeconds = Math.min(sessionMaxAgeSeconds, left);
      const cookie = serializeSessionCookie({ ...user, scheme: 'cookie' }, cookieSecret, {
        maxAgeSeconds,
        secure: isHttps(http),
        now: at,
      });
      http.log.info({ sub: user.sub, tenantId: user.tenantId, maxAgeSeconds }, 'session created');
      return Results.noContent({ 'set-cookie': cookie, ...NO_STORE });
    },
    { metadata: { allowAnonymous: true, rateLimit: RateLimitPolicies.session } },
  );

  routes.delete(
    SESSION_PATH,
    ({ http }) => Results.noContent({ 'set-cookie': clearSessionCookie(isHttps(http)), ...NO_STORE }),
    {
      metadata: { allowAnonymous: true },
    },
  );

  if (!mint) return;
  routes.get(
    SESSION_TOKEN_PATH,
    async ({ http }) => {
      const user = principalOf(http);
      if (user?.scheme !== 'cookie' || user.expiresAt === undefined) return noSession();
      const at = now();
      const expiresInSeconds = Math.min(tokenExpiresInSeconds, Math.floor((user.expiresAt - at) / 1000));
      if (expiresInSeconds < 1) return noSession();
      const token = await signUserToken({
        sub: user.sub,
        tenantId: user.tenantId,
        roles: user.roles,
        ...mint,
        expiresInSeconds,
        now: at,
      });
      // signUserToken counts from the whole second, so exp ≤ the session's expiry.
      const expiresAt = (Math.floor(at / 1000) + expiresInSeconds) * 1000;
      return Results.json({ token, tenantId: user.tenantId, sub: user.sub, expiresAt }, 200, NO_STORE);
    },
    { metadata: { allowAnonymous: true } },
  );
}

function isHttps(ctx: HttpContext): boolean {
  return ctx.origin.startsWith('https:');
}

/** 401 as authorization would answer it: `error="invalid_token"` when a bearer token was refused. */
function challengeResult(): Result {
  return { status: 401, execute: (ctx: HttpContext) => challenge(ctx, undefined) };
}

function invalidToken(): Result {
  return Results.problem(Errors.AUTH_INVALID_TOKEN, 'The access token is not valid for this service.', undefined, {
    'www-authenticate': 'Bearer error="invalid_token"',
  });
}

function noSession(): Result {
  return Results.problem(
    Errors.AUTH_UNAUTHENTICATED,
    `No valid session: sign in with POST ${SESSION_PATH} and a bearer token.`,
    undefined,
    {
      'www-authenticate': 'Bearer',
    },
  );
}
