// Test support: the security middleware in the order compose-application wires it.
import type { Middleware } from '../../../../src/host/pipeline/middleware.js';
import { WebApplication } from '../../../../src/host/pipeline/web-application.js';
import { serializeSessionCookie } from '../../../../src/host/security/cookie.js';
import { CorsPolicies } from '../../../../src/host/security/cors-policies.js';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../../../src/host/security/dev-defaults.js';
import { authentication } from '../../../../src/host/security/http/authentication.js';
import { authorization } from '../../../../src/host/security/http/authorization-middleware.js';
import { cors } from '../../../../src/host/security/http/cors.js';
import { DEV_SIGNIN_PAGES } from '../../../../src/host/security/http/dev-signin.js';
import { rateLimiting, type RateLimitingOptions } from '../../../../src/host/security/http/rate-limiting.js';
import { createJwtVerifier, signUserToken } from '../../../../src/host/security/jwt-bearer.js';
import type { Principal } from '../../../../src/host/security/principal.js';

export const JWT = { secret: DEV_JWT_SECRET, issuer: DEV_JWT_ISSUER, audience: DEV_JWT_AUDIENCE };
/** Cookie MACs use the JWT secret, as compose-application wires it. */
export const COOKIE_SECRET = DEV_JWT_SECRET;

export interface SecuredAppOptions {
  /** The default CORS policy's origins (ignored when `corsPolicies` is given). */
  allowedOrigins?: string[];
  corsPolicies?: CorsPolicies;
  rateLimits?: RateLimitingOptions;
  development?: boolean;
  /** Runs before everything but the exception handler (tests count what reaches the server). */
  first?: Middleware;
}

/** exception handler → routing → cors → authentication → rate limiting → authorization. */
export function securedApp(options: SecuredAppOptions = {}): WebApplication {
  const development = options.development ?? true;
  const web = new WebApplication({ development });
  web.useExceptionHandler();
  if (options.first) web.use(options.first);
  web.useRouting();
  web.use(
    cors(options.corsPolicies ?? new CorsPolicies({ default: { allowedOrigins: options.allowedOrigins ?? [] } })),
  );
  web.use(authentication({ bearer: createJwtVerifier(JWT), cookie: { secret: COOKIE_SECRET } }));
  web.use(rateLimiting(options.rateLimits ?? { policies: {} }));
  web.use(authorization(development ? { pages: DEV_SIGNIN_PAGES } : {}));
  return web;
}

export function tokenFor(
  sub: string,
  tenantId: string,
  roles: string[] = [],
  extra: { expiresInSeconds?: number; now?: number } = {},
) {
  return signUserToken({ sub, tenantId, roles, ...JWT, ...extra });
}

export const bearer = async (sub: string, tenantId: string, roles: string[] = []) => ({
  authorization: `Bearer ${await tokenFor(sub, tenantId, roles)}`,
});

/** A `Cookie` request header carrying a valid session for the user. */
export function sessionCookie(sub: string, tenantId: string, roles: string[] = [], now = Date.now()): string {
  const principal: Principal = { sub, tenantId, roles, scheme: 'cookie' };
  const setCookie = serializeSessionCookie(principal, COOKIE_SECRET, { maxAgeSeconds: 3600, secure: false, now });
  return setCookie.split(';')[0]!;
}
