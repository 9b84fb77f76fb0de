import type { IncomingMessage } from 'node:http';
import type { HttpContext } from '../../host/pipeline/http-context.js';
import { principalOf } from './security-metadata.js';

/**
 * The client's address as the socket sees it. Forwarded headers are not trusted: any client can set
 * them and so pick a fresh partition per request. Behind a proxy, everything shares the proxy's address.
 */
export function byClientIp(ctx: HttpContext): string {
  return clientIpKey(ctx.raw);
}

/** byClientIp for a raw request, for listeners outside the pipeline (socket.io's engine). */
export function clientIpKey(req: IncomingMessage): string {
  return `ip:${req.socket.remoteAddress ?? 'unknown'}`;
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
