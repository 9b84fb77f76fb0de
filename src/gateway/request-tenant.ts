import type { IncomingMessage } from 'node:http';
import { expectedAudiences } from '../protocol/webpubsub/audience.js';
import { verifyClientAccessToken } from '../protocol/webpubsub/access-token.js';
import { readSessionCookie } from '../security/cookie.js';
import { bearerToken, type JwtVerifier } from '../security/jwt-bearer.js';

/** Whose request it is: a verified tenant, no credentials at all, or credentials that failed. */
export type RequestTenant = { kind: 'tenant'; tenantId: string } | { kind: 'anonymous' } | { kind: 'invalid' };

export interface RequestTenantOptions {
  /** Verifies user tokens (`Auth:Jwt:*`), as the hubs do. */
  verifier: JwtVerifier;
  /** `Hub:AccessKey`: verifies Web PubSub client access tokens; unset → such tokens are refused. */
  accessKey: string | undefined;
  /** Verifies the dashboard's `hub_session` cookie; unset → the cookie is ignored. */
  sessionSecret: string | undefined;
  /** `Http:PublicBaseUrl`, an audience client tokens may name besides the request's own host. */
  publicBaseUrl: string | undefined;
  now: () => number;
}

const CLIENT_HUB_PATH = /^\/client\/hubs\/([^/?]+)\/?$/;

/**
 * The tenant of a request, from the credentials the hub itself would accept: a user token
 * (`Authorization: Bearer`, or `access_token` in the query as WebSocket clients send it), a Web
 * PubSub client access token on `/client/hubs/{hub}`, or the dashboard's session cookie. Verified
 * here, signature and expiry, so a forged `tenant_id` cannot steer traffic onto another tenant's
 * stamp (a dedicated silo takes only its tenant's requests); the hub verifies again.
 */
export function createRequestTenantResolver(options: RequestTenantOptions): (req: IncomingMessage) => Promise<RequestTenant> {
  return async (req) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const token = bearerToken(req.headers.authorization) ?? url.searchParams.get('access_token');
    if (token !== null && token !== '') {
      const user = await options.verifier.verify(token);
      if (user.ok) return { kind: 'tenant', tenantId: user.principal.tenantId };
      const hub = CLIENT_HUB_PATH.exec(url.pathname)?.[1];
      if (hub !== undefined && options.accessKey !== undefined) {
        const audiences = expectedAudiences(`/client/hubs/${hub}`, req.headers.host, options.publicBaseUrl ? [options.publicBaseUrl] : []);
        const client = await verifyClientAccessToken(token, { accessKey: options.accessKey, audiences });
        if (client.ok && client.claims.tenantId !== undefined) return { kind: 'tenant', tenantId: client.claims.tenantId };
      }
      return { kind: 'invalid' };
    }
    if (options.sessionSecret !== undefined && req.headers.cookie !== undefined) {
      const principal = readSessionCookie(req.headers.cookie, options.sessionSecret, options.now());
      if (principal) return { kind: 'tenant', tenantId: principal.tenantId };
    }
    return { kind: 'anonymous' };
  };
}
