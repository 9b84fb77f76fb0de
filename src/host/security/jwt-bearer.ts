import { SignJWT, createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { hs256Key } from './hs256-key.js';
import { principalFromFields, type Principal, type PrincipalFieldError } from './principal.js';
import { isLoopbackHost } from '../loopback-host.js';
import { systemClock } from '../clock.js';

/** Options for verifying user access tokens (contract "User tokens", config `Auth:Jwt:*`). */
export interface JwtVerifierOptions {
  /** HS256 shared secret (at least 32 bytes). Exactly one of `secret` and `jwksUri`. */
  secret?: string;
  /** JWKS endpoint of an asymmetric issuer (RS256 / ES256); https, or http on loopback only. */
  jwksUri?: string;
  issuer: string;
  audience: string;
  /** Tolerance for `exp` / `nbf` against this host's clock. Default 60. */
  clockSkewSeconds?: number;
  /** Clock, epoch ms. Default the system clock. */
  now?: () => number;
}

/** Why a token was refused. Safe to log; never send to the client beyond "401". */
export type JwtRejectReason =
  | 'malformed'
  | 'algorithm_not_allowed'
  | 'invalid_signature'
  | 'key_unavailable'
  | 'expired'
  | 'not_yet_valid'
  | 'missing_expiry'
  | 'invalid_issuer'
  | 'invalid_audience'
  | PrincipalFieldError;

export type JwtVerifyResult = { ok: true; principal: Principal } | { ok: false; reason: JwtRejectReason };

export interface JwtVerifier {
  /** Never throws: every failure, including an unreachable JWKS endpoint, is a reason. */
  verify(token: string): Promise<JwtVerifyResult>;
}

const HMAC_ALGORITHMS = ['HS256'];
const ASYMMETRIC_ALGORITHMS = ['RS256', 'ES256'];
const MIN_SECRET_BYTES = 32;
/** Real user tokens are well under 2 KB; bigger input is refused before any crypto work. */
const MAX_TOKEN_LENGTH = 8192;

/**
 * Builds a verifier for user access tokens. Throws (at start-up) on contradictory or weak options,
 * so a misconfigured host never starts accepting tokens.
 */
export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  const { issuer, audience, clockSkewSeconds = 60, now = systemClock.now } = options;
  if (!issuer || !audience) throw new TypeError('Auth:Jwt:Issuer and Auth:Jwt:Audience are required');
  if (!Number.isFinite(clockSkewSeconds) || clockSkewSeconds < 0) {
    throw new RangeError('clockSkewSeconds must be a non-negative number');
  }
  const { key, algorithms } = resolveKey(options);

  return {
    async verify(token) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) {
        return { ok: false, reason: 'malformed' };
      }
      let payload: JWTPayload;
      try {
        const checks = {
          algorithms,
          issuer,
          audience,
          clockTolerance: clockSkewSeconds,
          currentDate: new Date(now()),
          // A user token without expiry would be valid forever once leaked.
          requiredClaims: ['exp'],
        };
        ({ payload } =
          typeof key === 'function' ? await jwtVerify(token, key, checks) : await jwtVerify(token, await key, checks));
      } catch (err) {
        return { ok: false, reason: reasonFor(err) };
      }
      const fields = { sub: payload.sub, tenantId: payload['tenant_id'], roles: payload['roles'] };
      const result = principalFromFields(fields, 'bearer', (payload.exp as number) * 1000);
      return result.ok ? result : { ok: false, reason: result.reason };
    },
  };
}

/** Options for issuing a user access token (token CLI, tests). */
export interface SignUserTokenOptions {
  sub: string;
  tenantId: string;
  roles?: string[];
  secret: string;
  issuer: string;
  audience: string;
  /** Lifetime. Default 3600. */
  expiresInSeconds?: number;
  /** Issue time, epoch ms. Default the system clock. */
  now?: number;
}

/** Signs an HS256 user access token with claims `sub`, `tenant_id`, `roles`, `iss`, `aud`, `iat`, `exp`. */
export async function signUserToken(options: SignUserTokenOptions): Promise<string> {
  const { sub, tenantId, roles = [], secret, issuer, audience, expiresInSeconds = 3600 } = options;
  const checked = principalFromFields({ sub, tenantId, roles }, 'bearer');
  if (!checked.ok) throw new TypeError(`cannot sign user token: ${checked.reason}`);
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds <= 0) {
    throw new RangeError('expiresInSeconds must be a positive integer');
  }
  const iat = Math.floor((options.now ?? systemClock.now()) / 1000);
  return new SignJWT({ tenant_id: tenantId, roles })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(sub)
    .setIssuer(issuer)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + expiresInSeconds)
    .sign(await hs256Key(secretKey(secret)));
}

function resolveKey(options: JwtVerifierOptions): { key: Promise<CryptoKey> | JWTVerifyGetKey; algorithms: string[] } {
  const { secret, jwksUri } = options;
  if ((secret === undefined) === (jwksUri === undefined)) {
    throw new TypeError('configure exactly one of Auth:Jwt:Secret and Auth:Jwt:JwksUri');
  }
  if (secret !== undefined) return { key: hs256Key(secretKey(secret)), algorithms: HMAC_ALGORITHMS };
  const url = new URL(jwksUri!);
  // Keys fetched over plain HTTP from another machine could be swapped by anyone on the path.
  if (url.protocol !== 'https:' && !isLoopbackHost(url.hostname)) {
    throw new TypeError('Auth:Jwt:JwksUri must use https (http is accepted on loopback only)');
  }
  return { key: createRemoteJWKSet(url), algorithms: ASYMMETRIC_ALGORITHMS };
}

/** The secret, once it is long enough to sign with. */
function secretKey(secret: string): string {
  if (new TextEncoder().encode(secret).length < MIN_SECRET_BYTES) {
    throw new RangeError(`Auth:Jwt:Secret must be at least ${MIN_SECRET_BYTES} bytes`);
  }
  return secret;
}

function reasonFor(err: unknown): JwtRejectReason {
  const { code, claim, reason } = (err ?? {}) as { code?: string; claim?: string; reason?: string };
  switch (code) {
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'algorithm_not_allowed';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'invalid_signature';
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
    case 'ERR_JOSE_GENERIC': // JWKS endpoint answered non-200 or non-JSON
      return 'key_unavailable';
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'iss') return 'invalid_issuer';
      if (claim === 'aud') return 'invalid_audience';
      if (claim === 'nbf') return 'not_yet_valid';
      if (claim === 'exp' && reason === 'missing') return 'missing_expiry';
      return 'malformed';
    case undefined:
      // Not a JOSE error: the JWKS fetch itself failed (connection refused, DNS).
      return 'key_unavailable';
    default:
      return 'malformed';
  }
}
