import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { bearerToken } from '../../../../src/host/edge/credentials.js';
import { verifyClientAccessToken, verifyManagementToken } from '../../../../src/wire/webpubsub/access-token.js';
import { readSessionCookie, SESSION_COOKIE_NAME } from '../../../../src/host/security/cookie.js';
import { createJwtVerifier } from '../../../../src/host/security/jwt-bearer.js';
import { hostileText, RUNS, withinBudget, withinBudgetAsync } from './fuzz-support.js';

const SECRET = 'fuzz-secret-fuzz-secret-fuzz-secret-0123';
const NOW = 1_800_000_000_000;
const b64 = (v: unknown): string =>
  Buffer.from(typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).toString('base64url');

/** Strings shaped like a JWT (three base64url parts) around arbitrary headers, payloads and signatures. */
const jwtShaped = fc
  .tuple(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), fc.string({ maxLength: 64 }))
  .map(([header, payload, sig]) => `${b64(header)}.${b64(payload)}.${b64(sig)}`);
const algHeaders = fc
  .constantFrom('none', 'HS256', 'HS512', 'RS256', 'ES256', 'PS256', 'EdDSA', '', 'hs256')
  .map((alg) => `${b64({ alg, typ: 'JWT' })}.${b64({ sub: 'x', exp: 9e9 })}.`);
/** Arbitrary claims, correctly signed: what a holder of the key (or a future issuer) could send. */
const claims = fc.dictionary(
  fc.constantFrom('sub', 'tenant_id', 'roles', 'role', 'exp', 'nbf', 'iat', 'iss', 'aud', 'webpubsub.group', 'x'),
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.integer(), fc.constant(NOW / 1000 + 600)),
);
async function signed(payload: Record<string, unknown>, key: string): Promise<string> {
  return new SignJWT(payload as never).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(key));
}

const USER_REASONS = [
  'malformed',
  'algorithm_not_allowed',
  'invalid_signature',
  'key_unavailable',
  'expired',
  'not_yet_valid',
  'missing_expiry',
  'invalid_issuer',
  'invalid_audience',
  'invalid_subject',
  'invalid_tenant',
  'invalid_roles',
];

/** Issue 12 item 9: tokens and cookies from a remote party give a principal or a documented refusal. */
describe('fuzz: tokens and cookies', () => {
  const verifier = createJwtVerifier({ secret: SECRET, issuer: 'iss', audience: 'aud', now: () => NOW });

  it('user bearer tokens: any string or signed claim set verifies or is refused with a documented reason', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileText(9000),
          jwtShaped,
          algHeaders,
          claims.chain((c) => fc.constant(c)),
        ),
        async (input) => {
          const token = typeof input === 'string' ? input : await signed({ iss: 'iss', aud: 'aud', ...input }, SECRET);
          const result = await withinBudgetAsync(() => verifier.verify(token));
          if (result.ok) expect(typeof result.principal.sub).toBe('string');
          else expect(USER_REASONS).toContain(result.reason);
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);

  it('Authorization headers: bearerToken gives a token or null', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostileText(),
          fc.string().map((s) => `Bearer ${s}`),
          fc.constant(undefined),
        ),
        (header) => {
          const token = withinBudget(() => bearerToken(header));
          if (token !== null) expect(typeof token).toBe('string');
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);

  it('Web PubSub client and management tokens: verified or refused with missing / invalid / expired / audience / client_token', async () => {
    const options = { accessKey: SECRET, audiences: ['http://hub/client/hubs/telemetry'] };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileText(9000),
          jwtShaped,
          algHeaders,
          claims.chain((c) => fc.constant(c)),
          fc.constant(undefined),
        ),
        async (input) => {
          const token = input === undefined || typeof input === 'string' ? input : await signed(input, SECRET);
          const results = [
            await withinBudgetAsync(() => verifyClientAccessToken(token, options)),
            await withinBudgetAsync(() => verifyManagementToken(token, options)),
          ];
          for (const result of results)
            if (!result.ok)
              expect(['missing', 'invalid', 'expired', 'audience', 'client_token']).toContain(result.reason);
        },
      ),
      { numRuns: RUNS },
    );
  }, 60_000);

  it('Cookie headers: readSessionCookie gives a principal or null, for any header and any correctly signed body', () => {
    // The MAC as the hub computes it, so bodies of any shape get past the signature check.
    const sign = (payload: string) =>
      createHmac('sha256', SECRET).update('telemetry-hub.session.v1.').update(payload).digest('base64url');
    const signedCookie = fc.jsonValue({ maxDepth: 3 }).map((body) => {
      const payload = b64(body);
      return `${SESSION_COOKIE_NAME}=${payload}.${sign(payload)}`;
    });
    const header = fc.oneof(
      hostileText(),
      signedCookie,
      fc
        .array(
          fc.oneof(
            signedCookie,
            fc.string({ maxLength: 40 }).map((v) => `${SESSION_COOKIE_NAME}=${v}`),
            fc.string({ maxLength: 40 }),
          ),
          { maxLength: 20 },
        )
        .map((parts) => parts.join('; ')),
    );
    fc.assert(
      fc.property(header, (cookie) => {
        const principal = withinBudget(() => readSessionCookie(cookie, SECRET, NOW));
        if (principal !== null) expect(typeof principal.sub).toBe('string');
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
