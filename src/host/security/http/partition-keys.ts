import type { HttpContext } from '../../pipeline/http-context.js';
import { principalOf } from './security-metadata.js';

/**
 * The client's address, as the edge identity resolves it: the peer, or behind a proxy in
 * `Http:TrustedProxies` the address it forwarded for. Anyone else's forwarded headers are ignored:
 * a client could otherwise pick a fresh partition per request.
 */
export function byClientIp(ctx: HttpContext): string {
  return `ip:${ctx.clientAddress}`;
}

/** The signed-in user (sub within tenant: subs of two tenants may collide); anonymous callers by address. */
export function byUser(ctx: HttpContext): string {
  const principal = principalOf(ctx);
  return principal ? `user:${principal.tenantId}/${principal.sub}` : byClientIp(ctx);
}

/** The signed-in user's tenant; anonymous callers by address. */
export function byTenant(ctx: HttpContext): string {
  const principal = principalOf(ctx);
  return principal ? `tenant:${principal.tenantId}` : byClientIp(ctx);
}

/**
 * The access key a management call is signed with. The hub has one (`Hub:AccessKey`), so every
 * management caller shares its partition: a limit per key is a limit on the management API.
 */
export function byAccessKey(_ctx: HttpContext): string {
  return 'access-key:primary';
}
