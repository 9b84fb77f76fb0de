import type { Credential, PresentedCredentials } from '../edge/credentials.js';
import { readSessionCookie } from './cookie.js';
import type { JwtVerifier } from './jwt-bearer.js';
import type { Principal } from './principal.js';

/** What verifying one credential gives: who it names (and the tenant), or why it was refused (safe to log, never to send). */
export type Verified<T> =
  | { readonly ok: true; readonly identity: T; readonly tenantId: string }
  | { readonly ok: false; readonly reason: string };

export type Identification<T> =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'identified'; readonly identity: T; readonly credential: Credential }
  | { readonly kind: 'refused'; readonly credential: Credential | null; readonly reason: string };

export type CredentialCheck<T> = (credential: Credential) => Verified<T> | Promise<Verified<T>>;

const ANONYMOUS = Object.freeze({ kind: 'anonymous' as const });

/**
 * Who a request is, from what it presents (see `presentedCredentials`): the chosen credential,
 * verified; refused when it is malformed or invalid, and when any other credential it carries is
 * valid for another tenant (the gateway would route by one and the hub act on the other). The hub's
 * authentication and the gateway both identify requests through this, with their own checks.
 */
export async function identify<T>(
  presented: PresentedCredentials,
  check: CredentialCheck<T>,
): Promise<Identification<T>> {
  if (presented.malformed) return { kind: 'refused', credential: null, reason: 'malformed' };
  const chosen = presented.chosen;
  if (chosen === null) return ANONYMOUS;
  const verified = await check(chosen);
  if (!verified.ok) return { kind: 'refused', credential: chosen, reason: verified.reason };
  for (const other of presented.others) {
    const also = await check(other);
    if (also.ok && also.tenantId !== verified.tenantId)
      return { kind: 'refused', credential: chosen, reason: 'conflicting_credentials' };
  }
  return { kind: 'identified', identity: verified.identity, credential: chosen };
}

/** Checks user credentials: bearer tokens with the `Auth:Jwt:*` verifier, the `hub_session` cookie with its secret. */
export function userCredentialCheck(options: {
  bearer: JwtVerifier;
  cookieSecret?: string | undefined;
  now: () => number;
}): CredentialCheck<Principal> {
  const { bearer, cookieSecret, now } = options;
  return (credential) => {
    if (credential.kind === 'bearer') {
      return bearer
        .verify(credential.token)
        .then((v) =>
          v.ok ? { ok: true, identity: v.principal, tenantId: v.principal.tenantId } : { ok: false, reason: v.reason },
        );
    }
    const principal = cookieSecret === undefined ? null : readSessionCookie(credential.header, cookieSecret, now());
    return principal
      ? { ok: true, identity: principal, tenantId: principal.tenantId }
      : { ok: false, reason: 'invalid_cookie' };
  };
}

/**
 * A socket.io connection's identity: `auth.token` of its CONNECT packet first, else the bearer token
 * its handshake request presents (header, or `access_token` in the query). A session cookie never
 * authenticates a socket, but it and every other credential presented must name the same tenant.
 */
export function identifyHandshake<T>(
  authToken: unknown,
  presented: PresentedCredentials,
  check: CredentialCheck<T>,
): Promise<Identification<T>> {
  if (presented.malformed) return Promise.resolve({ kind: 'refused', credential: null, reason: 'malformed' });
  const all = presented.chosen === null ? [] : [presented.chosen, ...presented.others];
  const token: Credential | undefined =
    typeof authToken === 'string' && authToken !== ''
      ? { kind: 'bearer', token: authToken, from: 'handshake' }
      : all.find((c) => c.kind === 'bearer');
  if (token === undefined) return Promise.resolve(ANONYMOUS);
  return identify({ chosen: token, malformed: false, others: all.filter((c) => c !== token) }, check);
}
