import { SignJWT, errors, jwtVerify, type JWTPayload } from 'jose';
import { hs256Key } from '../../host/security/hs256-key.js';
import { audienceMatches } from './audience.js';
import { systemClock } from '../../host/clock.js';

/** What a client access token grants, as the endpoint uses it. */
export interface ClientAccessClaims {
  /** `sub`: the user id the connection reports in `connected`. */
  readonly userId: string | undefined;
  /** `tenant_id`: the tenant whose device groups the connection may join without a role. */
  readonly tenantId: string | undefined;
  /** `role`: e.g. `webpubsub.joinLeaveGroup.{group}`, `webpubsub.sendToGroup`. */
  readonly roles: readonly string[];
  /** `webpubsub.group`: groups joined on connect. */
  readonly groups: readonly string[];
  /** `exp` in epoch seconds. */
  readonly expiresAt: number;
}

export interface MintClientTokenOptions {
  accessKey: string;
  /** `{http(s) base}/client/hubs/{hub}`; see clientAudience. */
  audience: string;
  userId?: string | undefined;
  tenantId?: string | undefined;
  roles?: readonly string[];
  groups?: readonly string[];
  /** Default 3600 (1 hour), like the service SDKs. */
  expiresInSeconds?: number;
}

export type TokenFailure = 'missing' | 'invalid' | 'expired' | 'audience' | 'client_token';
export type VerifyResult<T> = { ok: true; claims: T } | { ok: false; reason: TokenFailure };

/** Tolerated clock skew between the token issuer and this host. */
const CLOCK_TOLERANCE_SECONDS = 5;

/** The audience of client tokens: `{base}/client/hubs/{hub}` with an http(s) base. */
export function clientAudience(baseUrl: string, hub: string): string {
  const base = baseUrl.replace(/\/+$/, '').replace(/^ws(s?):/i, 'http$1:');
  return `${base}/client/hubs/${hub}`;
}

/** The URL a client connects to: `ws(s)://…/client/hubs/{hub}?access_token=…`. */
export function clientAccessUrl(baseUrl: string, hub: string, token: string): string {
  const base = baseUrl.replace(/\/+$/, '').replace(/^http(s?):/i, 'ws$1:');
  return `${base}/client/hubs/${encodeURIComponent(hub)}?access_token=${encodeURIComponent(token)}`;
}

/** Mints a client access token (HS256 with the hub access key), as the service SDKs do. */
export async function mintClientAccessToken(options: MintClientTokenOptions): Promise<string> {
  const payload: JWTPayload = {};
  if (options.roles !== undefined && options.roles.length > 0) payload['role'] = [...options.roles];
  if (options.groups !== undefined && options.groups.length > 0) payload['webpubsub.group'] = [...options.groups];
  if (options.tenantId !== undefined) payload['tenant_id'] = options.tenantId;
  const jwt = new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(options.audience)
    .setIssuedAt()
    .setExpirationTime(Math.floor(systemClock.now() / 1000) + (options.expiresInSeconds ?? 3600));
  if (options.userId !== undefined) jwt.setSubject(options.userId);
  return jwt.sign(await hs256Key(options.accessKey));
}

/** Verifies a client access token against the accepted audiences (see clientAudiences). */
export async function verifyClientAccessToken(
  token: string | undefined,
  options: { accessKey: string; audiences: readonly string[] },
): Promise<VerifyResult<ClientAccessClaims>> {
  const verified = await verifyHs256(token, options.accessKey, options.audiences);
  if (!verified.ok) return verified;
  const p = verified.claims;
  return {
    ok: true,
    claims: {
      userId: typeof p.sub === 'string' && p.sub !== '' ? p.sub : undefined,
      tenantId: typeof p['tenant_id'] === 'string' && p['tenant_id'] !== '' ? p['tenant_id'] : undefined,
      roles: stringList(p['role']),
      groups: stringList(p['webpubsub.group']),
      expiresAt: p.exp ?? 0,
    },
  };
}

/**
 * Claims only client access tokens carry. Both kinds are signed with the same access key, so a
 * token that has any of them was minted for a client (through negotiate, for any signed-in user)
 * and is refused by the management API whatever its audience says.
 */
const CLIENT_ONLY_CLAIMS = ['tenant_id', 'role', 'webpubsub.group'];

/**
 * Verifies a management API token: HS256 with the access key, `aud` = the request URL exactly as
 * sent (see managementAudiences), and none of a client token's claims.
 */
export async function verifyManagementToken(
  token: string | undefined,
  options: { accessKey: string; audiences: readonly string[] },
): Promise<VerifyResult<JWTPayload>> {
  const verified = await verifyHs256(token, options.accessKey, options.audiences);
  if (verified.ok && CLIENT_ONLY_CLAIMS.some((claim) => claim in verified.claims))
    return { ok: false, reason: 'client_token' };
  return verified;
}

async function verifyHs256(
  token: string | undefined,
  accessKey: string,
  audiences: readonly string[],
): Promise<VerifyResult<JWTPayload>> {
  if (token === undefined || token === '') return { ok: false, reason: 'missing' };
  try {
    // The service signs with the key's UTF-8 bytes (jsonwebtoken with a string secret).
    const { payload } = await jwtVerify(token, await hs256Key(accessKey), {
      algorithms: ['HS256'],
      requiredClaims: ['exp', 'aud'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    if (!audienceMatches(payload.aud, audiences)) return { ok: false, reason: 'audience' };
    return { ok: true, claims: payload };
  } catch (err) {
    return { ok: false, reason: err instanceof errors.JWTExpired ? 'expired' : 'invalid' };
  }
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}
