import type { HttpContext } from '../../pipeline/http-context.js';
import { DONE, type Middleware } from '../../pipeline/middleware.js';
import { evaluatePolicies, requireAuthenticated, type Policy } from '../authorization.js';
import { challenge, forbid, type PageRedirects } from './challenge.js';
import { authenticationResultOf } from './authentication-result.js';
import { principalOf, securityMetadata } from './security-metadata.js';

export interface AuthorizationOptions {
  /** Redirect targets for pages (metadata `page: true`); omitted → pages answer 401 / 403 like APIs. */
  pages?: PageRedirects;
  /** Policies of endpoints without `policies` metadata. Default `[requireAuthenticated]`. */
  defaultPolicies?: readonly Policy<HttpContext>[];
}

/**
 * Evaluates the selected endpoint's policies (spec "Authentication" 3–6). Place it after routing
 * and authentication. `allowAnonymous: true` skips it; otherwise the endpoint's `policies` (default:
 * requireAuthenticated) must all allow, else Challenge (nobody signed in) or Forbid (signed in).
 */
export function authorization(options: AuthorizationOptions = {}): Middleware {
  const { pages, defaultPolicies = [requireAuthenticated] } = options;
  return (ctx, next) => {
    // No endpoint or a built-in one: the 404 / 405 / 415 follows and reveals nothing protected.
    // Re-execution at the error path: this request was authorized already, and an anonymous caller
    // of a failing anonymous endpoint must see the 500, not a 401.
    if (ctx.endpoint === null || ctx.endpoint.metadata['builtIn'] === true || ctx.error !== undefined) return next(ctx);
    const metadata = securityMetadata(ctx.endpoint);
    if (metadata.allowAnonymous) return next(ctx);
    const principal = principalOf(ctx);
    const decision = evaluatePolicies(metadata.policies ?? defaultPolicies, principal, ctx);
    if (decision === 'allow') return next(ctx);
    const { scheme, failure } = authenticationResultOf(ctx);
    ctx.log.debug({ endpoint: ctx.endpoint.displayName, decision, scheme, reason: failure }, 'authorization failed');
    if (principal) forbid(ctx, principal, pages);
    else challenge(ctx, pages);
    return DONE;
  };
}
