import type { AppConfig } from '../host/config/app-config.js';
import type { WebApplication } from '../host/pipeline/web-application.js';
import { createCorsPolicy } from '../security/cors-policy.js';
import { authentication } from '../security/http/authentication.js';
import { authorization } from '../security/http/authorization-middleware.js';
import { cors } from '../security/http/cors.js';
import { defaultRateLimitPolicies } from '../security/http/default-rate-limit-policies.js';
import { DEV_SIGNIN_PAGES, mapDevSignIn } from '../security/http/dev-signin.js';
import { rateLimiting } from '../security/http/rate-limiting.js';
import type { JwtVerifier } from '../security/jwt-bearer.js';

/**
 * The security part of the pipeline, in the order the spec asks for: the exception handler
 * first, CORS before routing (preflights need no endpoint and no credentials), then routing,
 * authentication (never rejects), rate limits (partitioned by user, so after authentication;
 * before authorization so unauthenticated floods are limited too), and authorization last.
 */
export function useSecurity(web: WebApplication, config: AppConfig, verifier: JwtVerifier): void {
  const { jwt } = config;
  web.useExceptionHandler();
  web.use(cors(createCorsPolicy({ allowedOrigins: [...config.cors.allowedOrigins] })));
  web.useRouting();
  web.use(authentication({ bearer: verifier, ...(jwt.secret ? { cookie: { secret: jwt.secret } } : {}) }));
  web.use(rateLimiting({ policies: defaultRateLimitPolicies() }));
  web.use(authorization({ ...(config.isDevelopment ? { pages: DEV_SIGNIN_PAGES } : {}) }));
  if (config.isDevelopment && jwt.secret) {
    mapDevSignIn(web.routes, {
      development: true,
      cookieSecret: jwt.secret,
      jwt: { secret: jwt.secret, issuer: jwt.issuer, audience: jwt.audience },
      defaultUser: { sub: 'dev-user', tenantId: config.simulator.tenant },
    });
  }
}
