import { clientAccessUrl, clientAudience, mintClientAccessToken } from '../../../src/protocol/webpubsub/access-token.js';

/** Who a client access URL is for: the user's `sub` and tenant. */
export interface ClientIdentity {
  readonly userId: string;
  readonly tenantId: string;
}

/** `ws(s)://…/client/hubs/{hub}?access_token=…` for one user. */
export type ClientUrlIssuer = (identity: ClientIdentity) => Promise<string>;

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
 * (Azure Web PubSub) joining happens server-side, through `subscribe`.
 */
export function createClientUrlIssuer(options: ClientUrlIssuerOptions): ClientUrlIssuer {
  const audience = clientAudience(options.endpoint, options.hub);
  return async ({ userId, tenantId }) => {
    const token = await mintClientAccessToken({
      accessKey: options.accessKey,
      audience,
      userId,
      tenantId,
      expiresInSeconds: options.expiresInSeconds ?? 3600,
    });
    return clientAccessUrl(options.endpoint, options.hub, token);
  };
}
