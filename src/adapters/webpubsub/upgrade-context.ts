import { requestHost } from '../../host/edge/host-header.js';
import type { IncomingMessage } from 'node:http';
import { presentedCredentials } from '../../host/edge/credentials.js';
import { verifyClientAccessToken, type ClientAccessClaims } from '../../wire/webpubsub/access-token.js';
import { audienceBases, clientAudiences } from '../../wire/webpubsub/audience.js';

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
}

/** True for `/client/hubs/{hubName}` (any query): the path Web PubSub clients connect to. */
export function isClientHubPath(url: string | undefined, hubName: string): boolean {
  return clientHubFromPath(url)?.toLowerCase() === hubName.toLowerCase();
}

/**
 * Authenticates a Web PubSub upgrade: the credential `presentedCredentials` picks (an
 * `Authorization: Bearer` header, else `?access_token=`; both must then be the same token) verified
 * with the access key and `aud` = `{origin}/client/hubs/{hub}` exactly (see audienceBases); or a
 * recovery request carrying `awps_connection_id` + `awps_reconnection_token`, which needs no access
 * token (the service documents it that way, and the official client sends none of its own).
 * `origin` is the edge identity's for this request.
 */
export async function authenticateClientUpgrade(
  req: IncomingMessage,
  origin: string,
  options: UpgradeAuthOptions,
): Promise<UpgradeAuthResult> {
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
  const presented = presentedCredentials(req.headers, url.searchParams, { queryToken: true });
  if (presented.malformed) return reject(401, 'AUTH_INVALID_TOKEN', 'The access token is not valid.');
  // Two tokens in one handshake could name two identities: the same token twice is the only pair accepted.
  if (
    presented.others.some(
      (other) =>
        other.kind !== 'bearer' || presented.chosen?.kind !== 'bearer' || other.token !== presented.chosen.token,
    )
  ) {
    return reject(
      401,
      'AUTH_INVALID_TOKEN',
      'Send one access token: the Authorization header and access_token differ.',
    );
  }
  const token = presented.chosen?.kind === 'bearer' ? presented.chosen.token : undefined;
  const audiences = clientAudiences(audienceBases(origin, requestHost(req.headers) ?? undefined), options.hubName);
  const verified = await verifyClientAccessToken(token, { accessKey: options.accessKey, audiences });
  if (verified.ok) return { ok: true, context: { kind: 'connect', claims: verified.claims } };
  switch (verified.reason) {
    case 'missing':
      return reject(401, 'AUTH_UNAUTHENTICATED', 'An access token is required (query access_token).');
    case 'expired':
      return reject(401, 'AUTH_INVALID_TOKEN', 'The access token has expired.');
    case 'audience':
      return reject(401, 'AUTH_INVALID_TOKEN', 'The access token was issued for another hub or endpoint.');
    case 'invalid':
    case 'client_token':
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
