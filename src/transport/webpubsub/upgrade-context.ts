import type { IncomingMessage } from 'node:http';
import { bearerToken, verifyClientAccessToken, type ClientAccessClaims } from '../../protocol/webpubsub/access-token.js';
import { expectedAudiences } from '../../protocol/webpubsub/audience.js';

/**
 * What the endpoint needs to accept an upgrade: verified claims for a new connection, or the
 * session a reliable client asks to recover (checked by the endpoint, which owns the sessions).
 */
export type UpgradeContext =
  | { readonly kind: 'connect'; readonly claims: ClientAccessClaims }
  | { readonly kind: 'recover'; readonly connectionId: string; readonly reconnectionToken: string };

/** Why an upgrade is refused before the handshake; map to the host's error catalogue by `key`. */
export interface UpgradeRejection {
  readonly status: 401 | 404;
  readonly key: 'AUTH_UNAUTHENTICATED' | 'AUTH_INVALID_TOKEN' | 'HTTP_NOT_FOUND';
  readonly detail: string;
}

export type UpgradeAuthResult = { ok: true; context: UpgradeContext } | { ok: false; rejection: UpgradeRejection };

export interface UpgradeAuthOptions {
  readonly accessKey: string;
  /** The hub this host serves (`Hub:Name`); matched case-insensitively, like the service. */
  readonly hubName: string;
  /** Public base URLs the tokens may name besides http(s)://{Host}, e.g. behind a proxy. */
  readonly publicBaseUrls?: readonly string[];
}

/** True for `/client/hubs/{hubName}` (any query): the path Web PubSub clients connect to. */
export function isClientHubPath(url: string | undefined, hubName: string): boolean {
  return clientHubFromPath(url)?.toLowerCase() === hubName.toLowerCase();
}

/**
 * Authenticates a Web PubSub upgrade: `?access_token=` (or `Authorization: Bearer`) verified with
 * the access key and `aud` = `{http(s) base}/client/hubs/{hub}`; or a recovery request carrying
 * `awps_connection_id` + `awps_reconnection_token`, which needs no access token (the service
 * documents it that way, and the official client sends none of its own).
 */
export async function authenticateClientUpgrade(req: IncomingMessage, options: UpgradeAuthOptions): Promise<UpgradeAuthResult> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const hub = clientHubFromPath(url.pathname);
  if (hub === undefined || hub.toLowerCase() !== options.hubName.toLowerCase()) {
    return reject(404, 'HTTP_NOT_FOUND', `No hub at ${url.pathname}.`);
  }
  const connectionId = url.searchParams.get('awps_connection_id');
  const reconnectionToken = url.searchParams.get('awps_reconnection_token');
  if (connectionId !== null && reconnectionToken !== null && connectionId !== '' && reconnectionToken !== '') {
    return { ok: true, context: { kind: 'recover', connectionId, reconnectionToken } };
  }
  const token = url.searchParams.get('access_token') ?? bearerToken(req.headers.authorization);
  const audiences = expectedAudiences(`/client/hubs/${options.hubName}`, req.headers.host, options.publicBaseUrls);
  const verified = await verifyClientAccessToken(token ?? undefined, { accessKey: options.accessKey, audiences });
  if (verified.ok) return { ok: true, context: { kind: 'connect', claims: verified.claims } };
  switch (verified.reason) {
    case 'missing':
      return reject(401, 'AUTH_UNAUTHENTICATED', 'An access token is required (query access_token).');
    case 'expired':
      return reject(401, 'AUTH_INVALID_TOKEN', 'The access token has expired.');
    case 'audience':
      return reject(401, 'AUTH_INVALID_TOKEN', 'The access token was issued for another hub or endpoint.');
    case 'invalid':
      return reject(401, 'AUTH_INVALID_TOKEN', 'The access token is not valid.');
  }
}

function clientHubFromPath(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const path = url.split('?', 1)[0]!;
  const match = /^\/client\/hubs\/([^/]+)\/?$/.exec(path);
  if (match === null) return undefined;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
}

function reject(status: UpgradeRejection['status'], key: UpgradeRejection['key'], detail: string): UpgradeAuthResult {
  return { ok: false, rejection: { status, key, detail } };
}
