import type { Clock } from '../host/clock.js';
import type { AppConfig } from './app-config.js';
import type { WebApplication } from '../host/pipeline/web-application.js';
import { createCorsPolicy } from '../security/cors-policy.js';
import { authentication } from '../security/http/authentication.js';
import { authorization } from '../security/http/authorization-middleware.js';
import { deriveSessionSecret } from '../security/cookie.js';
import { cors } from '../security/http/cors.js';
import { defaultRateLimitPolicies } from '../security/http/default-rate-limit-policies.js';
import { DEV_SIGNIN_PAGES, mapDevSignIn } from '../security/http/dev-signin.js';
import { rateLimiting } from '../security/http/rate-limiting.js';
import { mapSessionExchange } from '../security/http/session-exchange.js';
import type { JwtVerifier } from '../security/jwt-bearer.js';

/**
 * The security part of the pipeline, in the order the spec asks for: the exception handler
 * first, CORS before routing (preflights need no endpoint and no credentials), then routing,
 * authentication (never rejects), rate limits (partitioned by user, so after authentication;
 * before authorization so unauthenticated floods are limited too), and authorization last.
 *
 * Sessions (`hub_session`) are signed with `Auth:Jwt:Secret`, or, for a hub that verifies user tokens
 * with a JWKS, with a secret derived from `Hub:AccessKey`. Every environment maps the token-for-session
 * exchange (`/auth/session`, and `/auth/token` when the hub can sign tokens, i.e. HS256); Development
 * adds the development sign-in.
 */
export function useSecurity(web: WebApplication, config: AppConfig, verifier: JwtVerifier, clock: Clock): void {
  const { jwt } = config;
  web.useExceptionHandler();
  web.use(
    cors(
      createCorsPolicy({
        allowedOrigins: [...config.cors.allowedOrigins],
        // If-Match and ETag: a page on another origin can make the profile's conditional writes.
        allowedHeaders: ['authorization', 'content-type', 'traceparent', 'tracestate', 'if-match'],
        exposedHeaders: ['etag', 'deprecation', 'sunset', 'link', 'retry-after'],
      }),
    ),
  );
  web.useRouting();
  // The key the verifier checks HS256 tokens with (compose-application prefers a JWKS when both are set).
  const hs256Secret = jwt.jwksUri ? undefined : jwt.secret;
  const cookieSecret = hs256Secret ?? deriveSessionSecret(config.hub.accessKey);
  web.use(authentication({ bearer: verifier, cookie: { secret: cookieSecret } }));
  web.use(rateLimiting({ policies: defaultRateLimitPolicies({ clock: () => clock.now() }) }));
  web.use(authorization({ ...(config.isDevelopment ? { pages: DEV_SIGNIN_PAGES } : {}) }));
  mapSessionExchange(web.routes, {
    cookieSecret,
    ...(hs256Secret ? { mint: { secret: hs256Secret, issuer: jwt.issuer, audience: jwt.audience } } : {}),
  });
  if (config.isDevelopment && jwt.secret) {
    mapDevSignIn(web.routes, {
      development: true,
      cookieSecret,
      jwt: { secret: jwt.secret, issuer: jwt.issuer, audience: jwt.audience },
      defaultUser: { sub: 'dev-user', tenantId: config.simulator.tenant },
    });
  }
}
