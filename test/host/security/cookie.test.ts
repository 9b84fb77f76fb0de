import { describe, expect, it } from 'vitest';
import {
  clearSessionCookie,
  readSessionCookie,
  serializeSessionCookie,
  SESSION_COOKIE_NAME,
} from '../../../src/host/security/cookie.js';
import type { Principal } from '../../../src/host/security/principal.js';

const SECRET = 'cookie-secret-that-is-long-enough-0123456789';
const NOW = 1_760_000_000_000;
const alice: Principal = { sub: 'alice', tenantId: 'acme', roles: ['admin'], scheme: 'bearer' };

/** The `name=value` pair a browser sends back for a Set-Cookie string. */
const pairOf = (setCookie: string) => setCookie.split(';')[0]!;
const issue = (principal = alice, maxAgeSeconds = 3600) =>
  pairOf(serializeSessionCookie(principal, SECRET, { maxAgeSeconds, secure: true, now: NOW }));

describe('session cookie', () => {
  it('sets HttpOnly, SameSite=Lax, Path=/, Max-Age and Secure when asked', () => {
    const header = serializeSessionCookie(alice, SECRET, { maxAgeSeconds: 3600, secure: true, now: NOW });
    const attributes = header.split('; ').slice(1);
    expect(header.startsWith(`${SESSION_COOKIE_NAME}=`)).toBe(true);
    expect(attributes).toEqual(['Max-Age=3600', 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']);
    const insecure = serializeSessionCookie(alice, SECRET, { maxAgeSeconds: 60, secure: false, now: NOW });
    expect(insecure).not.toMatch(/Secure/);
  });

  it('round-trips the principal as a cookie-scheme principal expiring after Max-Age', () => {
    expect(readSessionCookie(`theme=dark; ${issue()}; lang=en`, SECRET, NOW + 1000)).toEqual({
      sub: 'alice',
      tenantId: 'acme',
      roles: ['admin'],
      scheme: 'cookie',
      expiresAt: NOW + 3_600_000,
    });
  });

  it('is valid until just before expiry and refused from expiry on', () => {
    const cookie = issue(alice, 60);
    expect(readSessionCookie(cookie, SECRET, NOW + 59_999)).not.toBeNull();
    expect(readSessionCookie(cookie, SECRET, NOW + 60_000)).toBeNull();
  });

  it('refuses a cookie whose payload was changed (e.g. another tenant)', () => {
    const [name, value] = issue().split('=') as [string, string];
    const [payload, mac] = value.split('.') as [string, string];
    const body = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...body, tid: 'victim' })).toString('base64url');
    expect(readSessionCookie(`${name}=${forged}.${mac}`, SECRET, NOW)).toBeNull();
  });

  it('refuses a cookie whose MAC was changed, truncated or padded', () => {
    const cookie = issue();
    const flipped = cookie.slice(0, -1) + (cookie.endsWith('A') ? 'B' : 'A');
    expect(readSessionCookie(flipped, SECRET, NOW)).toBeNull();
    expect(readSessionCookie(cookie.slice(0, -2), SECRET, NOW)).toBeNull();
    expect(readSessionCookie(`${cookie}!`, SECRET, NOW)).toBeNull();
  });

  it('refuses a cookie signed with another secret', () => {
    const other = serializeSessionCookie(alice, 'another-secret-that-is-long-enough-987654', {
      maxAgeSeconds: 60,
      secure: true,
      now: NOW,
    });
    expect(readSessionCookie(pairOf(other), SECRET, NOW)).toBeNull();
  });

  it('ignores a planted invalid cookie of the same name and finds the valid one', () => {
    const header = `${SESSION_COOKIE_NAME}=planted.bogus; ${issue()}`;
    expect(readSessionCookie(header, SECRET, NOW)?.sub).toBe('alice');
  });

  it.each([undefined, '', 'theme=dark', `${SESSION_COOKIE_NAME}=`, `${SESSION_COOKIE_NAME}=no-dot`])(
    'gives null without a usable session cookie (%j)',
    (header) => expect(readSessionCookie(header, SECRET, NOW)).toBeNull(),
  );

  it('clears the cookie with Max-Age=0', () => {
    expect(clearSessionCookie(true)).toBe(`${SESSION_COOKIE_NAME}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure`);
  });

  it('refuses a short secret', () => {
    expect(() => serializeSessionCookie(alice, 'short', { maxAgeSeconds: 60, secure: true })).toThrow(/32 bytes/);
  });
});
