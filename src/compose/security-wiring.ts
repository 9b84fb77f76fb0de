import type { Clock } from '../host/clock.js';
import type { AppConfig } from './app-config.js';
import type { WebApplication } from '../host/pipeline/web-application.js';
import { CorsPolicies } from '../host/security/cors-policies.js';
import { authentication } from '../host/security/http/authentication.js';
import { authorization } from '../host/security/http/authorization-middleware.js';
import { deriveSessionSecret } from '../host/security/cookie.js';
import { cors } from '../host/security/http/cors.js';
import { defaultRateLimitPolicies } from '../host/security/http/default-rate-limit-policies.js';
import { DEV_SIGNIN_PAGES, mapDevSignIn } from '../host/security/http/dev-signin.js';
import { rateLimiting } from '../host/security/http/rate-limiting.js';
import { mapSessionExchange } from '../host/security/http/session-exchange.js';
import { createJwtVerifier, type JwtVerifier } from '../host/security/jwt-bearer.js';
import { UpgradeGuard } from '../host/security/upgrade-guard.js';
import type { ServiceCollection } from '../host/container/service-collection.js';
import { APP_CONFIG, CLOCK, EDGE_IDENTITY, TOKEN_VERIFIER, UPGRADE_GUARD } from './app-service-keys.js';

/**
 * The security part of the pipeline, in the order the spec asks for: the exception handler
 * first, routing, CORS (it reads the selected endpoint's policy; `Cors:AllowedOrigins` is the
 * default policy; preflights are answered before authentication, so they need no credentials),
 * authentication (never rejects), rate limits (partitioned by user, so after authentication;
 * before authorization so unauthenticated floods are limited too), and authorization last.
 *
 * Sessions (`hub_session`) are signed with `Auth:Jwt:Secret`, or, for a hub that verifies user tokens
 * with a JWKS, with a secret derived from `Hub:AccessKey`. Every environment maps the token-for-session
 * exchange (`/auth/session`, and `/auth/token` when the hub can sign tokens, i.e. HS256); Development
 * adds the development sign-in.
 */
export function useSecurity(
  web: WebApplication,
  config: AppConfig,
  verifier: JwtVerifier,
  clock: Clock,
): { cookieSecret: string; corsPolicies: CorsPolicies } {
  const { jwt } = config;
  web.useExceptionHandler();
  web.useRouting();
  const corsPolicies = new CorsPolicies({
    default: {
      allowedOrigins: [...config.cors.allowedOrigins],
      // If-Match and ETag: a page on another origin can make the profile's conditional writes.
      allowedHeaders: ['authorization', 'content-type', 'traceparent', 'tracestate', 'if-match'],
      exposedHeaders: ['etag', 'deprecation', 'sunset', 'link', 'retry-after'],
    },
  });
  web.use(cors(corsPolicies));
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
  return { cookieSecret, corsPolicies };
}

/**
 * The user-token verifier (the same one guards HTTP endpoints and socket connections) and the guard
 * every WebSocket handshake passes, socket.io's and Web PubSub's.
 */
export function registerSecurity(registrations: ServiceCollection): void {
  registrations
    .singleton(TOKEN_VERIFIER, [APP_CONFIG, CLOCK], (config, clock) =>
      createJwtVerifier({
        ...(config.jwt.jwksUri ? { jwksUri: config.jwt.jwksUri } : { secret: config.jwt.secret! }),
        issuer: config.jwt.issuer,
        audience: config.jwt.audience,
        clockSkewSeconds: config.jwt.clockSkewSeconds,
        now: () => clock.now(),
      }),
    )
    .singleton(
      UPGRADE_GUARD,
      [APP_CONFIG, EDGE_IDENTITY, CLOCK],
      (config, edge, clock) =>
        new UpgradeGuard({
          perIpPerSecond: config.http.webSocketUpgradesPerIpPerSecond,
          burstPerIp: config.http.webSocketUpgradeBurstPerIp,
          maxPending: config.http.maxPendingUpgrades,
          clientAddress: (req) => edge.clientAddress(req),
          clock: () => clock.now(),
        }),
    );
}
