import type { HttpContext } from '../../pipeline/http-context.js';
import type { AuthScheme } from '../principal.js';

/**
 * What authentication found, kept for the challenge: which scheme the request used (null: no
 * credentials) and, when its credential was refused, why. `failure` is safe to log, never to send.
 */
export interface AuthenticationResult {
  scheme: AuthScheme | null;
  failure?: string;
}

const KEY = Symbol('authentication result');

export function setAuthenticationResult(ctx: HttpContext, result: AuthenticationResult): void {
  ctx.items.set(KEY, result);
}

/** The result recorded by `authentication()`; `{ scheme: null }` when it did not run. */
export function authenticationResultOf(ctx: HttpContext): AuthenticationResult {
  return (ctx.items.get(KEY) as AuthenticationResult | undefined) ?? { scheme: null };
}
