import type { SelectedEndpoint } from '../../pipeline/http-context.js';
import type { HttpContext } from '../../pipeline/http-context.js';
import type { Policy } from '../authorization.js';
import type { Principal } from '../principal.js';

/**
 * Endpoint metadata keys the security middleware reads (put them in `EndpointOptions.metadata` or a
 * group's metadata):
 * - `allowAnonymous: true` skips authorization;
 * - `policies` replaces the default policy (requireAuthenticated);
 * - `page: true` marks a browser page: challenges redirect to sign-in instead of answering 401;
 * - `rateLimit` names the rate-limit policy, or `false` to exempt the endpoint from all limiters.
 */
export interface SecurityMetadata {
  allowAnonymous?: boolean;
  policies?: readonly Policy<HttpContext>[];
  page?: boolean;
  rateLimit?: string | false;
}

const CHECKS: Record<keyof SecurityMetadata, (value: unknown) => boolean> = {
  allowAnonymous: (v) => typeof v === 'boolean',
  page: (v) => typeof v === 'boolean',
  policies: (v) => Array.isArray(v) && v.every((p) => typeof p === 'function'),
  rateLimit: (v) => v === false || typeof v === 'string',
};

const NONE: SecurityMetadata = Object.freeze({});
/** Endpoints are immutable once built: each is checked once, not on every request (bench/). */
const checked = new WeakMap<SelectedEndpoint, SecurityMetadata>();

/** The security keys of an endpoint, type-checked: metadata is open-ended, so a typo'd value fails loudly here. */
export function securityMetadata(endpoint: SelectedEndpoint | null): SecurityMetadata {
  if (endpoint === null) return NONE;
  let found = checked.get(endpoint);
  if (found === undefined) {
    found = check(endpoint);
    checked.set(endpoint, found);
  }
  return found;
}

function check(endpoint: SelectedEndpoint): SecurityMetadata {
  const metadata = endpoint.metadata;
  const out: Record<string, unknown> = {};
  for (const [key, valid] of Object.entries(CHECKS)) {
    const value = metadata[key];
    if (value === undefined) continue;
    if (!valid(value)) throw new TypeError(`endpoint metadata "${key}" of ${endpoint.displayName} has the wrong type`);
    out[key] = value;
  }
  return Object.freeze(out) as SecurityMetadata;
}

/** The principal authentication put on the context, or null when anonymous. */
export function principalOf(ctx: HttpContext): Principal | null {
  return (ctx.user as Principal | null) ?? null;
}
