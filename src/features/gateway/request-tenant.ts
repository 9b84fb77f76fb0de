import { requestHost } from '../../host/edge/host-header.js';
import type { IncomingMessage } from 'node:http';
import { acceptsQueryToken, presentedCredentials } from '../../host/edge/credentials.js';
import type { EdgeIdentity } from '../../host/edge/edge-identity.js';
import { HANDSHAKE_PATHS } from '../../host/edge/handshake-paths.js';
import { verifyClientAccessToken } from '../../wire/webpubsub/access-token.js';
import { audienceBases, clientAudiences } from '../../wire/webpubsub/audience.js';
import { SESSION_COOKIE_NAME } from '../../host/security/cookie.js';
import { identify, userCredentialCheck, type CredentialCheck } from '../../host/security/identify.js';
import type { JwtVerifier } from '../../host/security/jwt-bearer.js';

/** Whose request it is: a verified tenant, no credentials at all, or credentials that failed. */
export type RequestTenant =
  | { kind: 'tenant'; tenantId: string }
  | { kind: 'anonymous' }
  | { kind: 'invalid'; reason: string };

export interface RequestTenantOptions {
  /** Verifies user tokens (`Auth:Jwt:*`), as the hubs do. */
  verifier: JwtVerifier;
  /** `Hub:AccessKey`: verifies Web PubSub client access tokens; unset → such tokens are refused. */
  accessKey: string | undefined;
  /** Verifies the dashboard's `hub_session` cookie; unset → the cookie is ignored. */
  sessionSecret: string | undefined;
  /** The gateway's origin and client address; a client token names the origin the client used. */
  edge: EdgeIdentity;
  now: () => number;
}

const CLIENT_HUB_PATH = /^\/client\/hubs\/([^/?]+)\/?$/;

/**
 * The tenant of a request, from the credential the hub will act on, read by the same parser with
 * the same rules (`presentedCredentials`): the `Authorization` header alone when present (malformed
 * → invalid, never a fall-back to the query), else `access_token` where the hub accepts a query token
 * (handshakes), else the session cookie; credentials of two tenants → invalid. A bearer token is a
 * user token, or on `/client/hubs/{hub}` a Web PubSub client access token. Verified here, signature
 * and expiry, so a forged `tenant_id` cannot steer traffic onto another tenant's stamp (a dedicated
 * silo takes only its tenant's requests); the hub verifies again.
 */
export function createRequestTenantResolver(
  options: RequestTenantOptions,
): (req: IncomingMessage) => Promise<RequestTenant> {
  const users = userCredentialCheck({
    bearer: options.verifier,
    cookieSecret: options.sessionSecret,
    now: options.now,
  });
  return async (req) => {
    const url = new URL(req.url ?? '/', 'http://gateway');
    const queryToken = acceptsQueryToken(
      { method: req.method, headers: req.headers, path: url.pathname },
      HANDSHAKE_PATHS,
    );
    const cookie = options.sessionSecret !== undefined ? { cookieName: SESSION_COOKIE_NAME } : {};
    const presented = presentedCredentials(req.headers, url.searchParams, { queryToken, ...cookie });
    const hub = CLIENT_HUB_PATH.exec(url.pathname)?.[1];
    const check: CredentialCheck<string> = async (credential) => {
      const user = await users(credential);
      if (user.ok || credential.kind !== 'bearer' || hub === undefined || options.accessKey === undefined)
        return user.ok ? { ...user, identity: user.tenantId } : user;
      const audiences = clientAudiences(
        audienceBases(options.edge.origin(req), requestHost(req.headers) ?? undefined),
        hub,
      );
      const client = await verifyClientAccessToken(credential.token, { accessKey: options.accessKey, audiences });
      if (client.ok && client.claims.tenantId !== undefined)
        return { ok: true, identity: client.claims.tenantId, tenantId: client.claims.tenantId };
      return user;
    };
    const who = await identify(presented, check);
    if (who.kind === 'identified') return { kind: 'tenant', tenantId: who.identity };
    // An expired or stale session is no identity, as on the hub: its pages must still load to sign in again.
    if (who.kind === 'refused' && who.credential?.kind !== 'cookie') return { kind: 'invalid', reason: who.reason };
    return { kind: 'anonymous' };
  };
}
