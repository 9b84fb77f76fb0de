import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../webpubsub/access-token.js';
import { systemClock } from '../../host/clock.js';

/** Who a client access URL is for: the user's `sub` and tenant, and when the user's own token expires. */
export interface ClientIdentity {
  readonly userId: string;
  readonly tenantId: string;
  /** Epoch ms; the client token expires no later (a negotiated connection never outlives the sign-in). */
  readonly expiresAt?: number;
}

/**
 * The group every negotiated connection joins on connect (claim `webpubsub.group`), naming its owner.
 * `subscribe` lists it to check that a connection id belongs to the caller: the data-plane API tells a
 * group's members (with user ids) but not a connection's owner. Clients cannot join it themselves
 * (their tokens carry no join role, and the hub allows them device groups only).
 */
export function ownerGroup(tenantId: string, userId: string): string {
  return `owner:${tenantId}:${userId}`;
}

/** `ws(s)://…/client/hubs/{hub}?access_token=…` for one user; undefined when the user's token has (all but) expired. */
export type ClientUrlIssuer = (identity: ClientIdentity) => Promise<string | undefined>;

export interface ClientUrlIssuerOptions {
  /** The service endpoint, e.g. `https://x.webpubsub.azure.com` (from the connection string). */
  readonly endpoint: string;
  readonly accessKey: string;
  readonly hub: string;
  /** Token lifetime. Default 3600 (1 hour), like the service SDKs. */
  readonly expiresInSeconds?: number;
}

/**
 * Mints client access tokens as the service SDKs do (HS256 with the access key, `aud` =
 * `{endpoint}/client/hubs/{hub}`), plus the `tenant_id` claim. Not `getClientAccessToken` of
 * @azure/web-pubsub: it signs only `sub`, `role` and `webpubsub.group`, with no way to add a claim.
 * No roles: the hub lets a token join its own tenant's device groups by `tenant_id`; elsewhere
 * (Azure Web PubSub) joining happens server-side, through `subscribe`. The token expires with the
 * user's token or after `expiresInSeconds`, whichever comes first.
 */
export function createClientUrlIssuer(options: ClientUrlIssuerOptions): ClientUrlIssuer {
  const audience = clientAudience(options.endpoint, options.hub);
  return async ({ userId, tenantId, expiresAt }) => {
    let expiresInSeconds = options.expiresInSeconds ?? 3600;
    // Counted from the whole second, as the token's exp is: exp never passes the user token's.
    if (expiresAt !== undefined)
      expiresInSeconds = Math.min(
        expiresInSeconds,
        Math.floor(expiresAt / 1000) - Math.floor(systemClock.now() / 1000),
      );
    if (expiresInSeconds < 1) return undefined;
    const token = await mintClientAccessToken({
      accessKey: options.accessKey,
      audience,
      userId,
      tenantId,
      groups: [ownerGroup(tenantId, userId)],
      expiresInSeconds,
    });
    return clientAccessUrl(options.endpoint, options.hub, token);
  };
}
