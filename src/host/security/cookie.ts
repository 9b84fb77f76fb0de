import { createHmac, timingSafeEqual } from 'node:crypto';
import { principalFromFields, type Principal } from './principal.js';
import { systemClock } from '../clock.js';

/** Name of the session cookie. */
export const SESSION_COOKIE_NAME = 'hub_session';

export interface SessionCookieOptions {
  /** Lifetime of the session; also the cookie's Max-Age. */
  maxAgeSeconds: number;
  /** Adds `Secure`; leave off only for plain-http development. */
  secure: boolean;
  /** Issue time, epoch ms. Default the system clock. */
  now?: number;
}

const MIN_SECRET_BYTES = 32;
/** Browsers cap a cookie at ~4 KB; anything longer was not written by us. */
const MAX_VALUE_LENGTH = 4096;
/** Binds the MAC to this use, so a MAC computed for another purpose with the same secret never verifies here. */
const MAC_LABEL = 'telemetry-hub.session.v1.';

/**
 * A `Set-Cookie` value holding the principal, signed with HMAC-SHA256:
 * `hub_session=<base64url JSON>.<base64url MAC>; Max-Age=…; Path=/; HttpOnly; SameSite=Lax[; Secure]`.
 * The session expires `maxAgeSeconds` after `now`, independently of any token it was created from.
 */
export function serializeSessionCookie(principal: Principal, secret: string, options: SessionCookieOptions): string {
  const { maxAgeSeconds, secure, now = systemClock.now() } = options;
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds <= 0) {
    throw new RangeError('maxAgeSeconds must be a positive integer');
  }
  const body = {
    sub: principal.sub,
    tid: principal.tenantId,
    roles: principal.roles,
    exp: now + maxAgeSeconds * 1000,
  };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  const value = `${payload}.${mac(payload, secret).toString('base64url')}`;
  return `${SESSION_COOKIE_NAME}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** A `Set-Cookie` value that deletes the session cookie (logout). */
export function clearSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/**
 * The principal in the session cookie of a `Cookie` request header, or null when there is none or it is
 * tampered, malformed or expired at `now` (epoch ms). When several cookies carry the name (a parent
 * domain can plant one), the first valid one wins: a planted cookie cannot carry a valid MAC.
 */
export function readSessionCookie(cookieHeader: string | undefined, secret: string, now: number): Principal | null {
  const key = checkedSecret(secret);
  for (const value of cookieValues(cookieHeader ?? '', SESSION_COOKIE_NAME)) {
    const principal = decode(value, key, now);
    if (principal) return principal;
  }
  return null;
}

function decode(value: string, key: Buffer, now: number): Principal | null {
  if (value.length > MAX_VALUE_LENGTH) return null;
  const dot = value.indexOf('.');
  if (dot <= 0) return null;
  const payload = value.slice(0, dot);
  // Compared as text: Node's base64url decoder skips stray characters, so decoding first would let
  // many spellings of one MAC verify.
  const given = Buffer.from(value.slice(dot + 1), 'latin1');
  const expected = Buffer.from(mac(payload, key).toString('base64url'), 'latin1');
  // timingSafeEqual throws on unequal lengths; the length of a MAC is no secret.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null) return null;
  const { sub, tid, roles, exp } = body as Record<string, unknown>;
  if (typeof exp !== 'number' || !Number.isFinite(exp) || exp <= now) return null;
  const result = principalFromFields({ sub, tenantId: tid, roles }, 'cookie', exp);
  return result.ok ? result.principal : null;
}

function cookieValues(header: string, name: string): string[] {
  const values: string[] = [];
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    values.push(
      part
        .slice(eq + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  return values;
}

/**
 * A session secret derived from another key (HMAC-SHA256 with a fixed label, base64url): for a hub
 * that verifies user tokens with a JWKS and so has no `Auth:Jwt:Secret`, from `Hub:AccessKey`. The
 * label keeps the derived secret unrelated to anything else that key signs.
 */
export function deriveSessionSecret(key: string): string {
  if (key.length === 0) throw new RangeError('cannot derive a session secret from an empty key');
  return createHmac('sha256', key).update('telemetry-hub.session-secret.v1').digest('base64url');
}

function mac(payload: string, secret: string | Buffer): Buffer {
  const key = typeof secret === 'string' ? checkedSecret(secret) : secret;
  return createHmac('sha256', key).update(MAC_LABEL).update(payload).digest();
}

function checkedSecret(secret: string): Buffer {
  const key = Buffer.from(secret, 'utf8');
  if (key.length < MIN_SECRET_BYTES) throw new RangeError(`session secret must be at least ${MIN_SECRET_BYTES} bytes`);
  return key;
}
