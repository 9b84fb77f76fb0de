import { SignJWT, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { hs256Key } from '../../../src/host/security/hs256-key.js';

/** An HS256 secret's key is imported once and serves both signing and verifying. */
describe('hs256Key', () => {
  const secret = 'a-secret-of-at-least-thirty-two-bytes-0123456789';

  it('gives the same key for the same secret, so WebCrypto imports it once', async () => {
    expect(hs256Key(secret)).toBe(hs256Key(secret));
    expect(hs256Key(`${secret}-other`)).not.toBe(hs256Key(secret));
  });

  it('signs and verifies a token as the secret bytes would, and refuses another secret', async () => {
    const token = await new SignJWT({ a: 1 })
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(secret));
    await expect(jwtVerify(token, await hs256Key(secret))).resolves.toMatchObject({ payload: { a: 1 } });
    const ours = await new SignJWT({ b: 2 }).setProtectedHeader({ alg: 'HS256' }).sign(await hs256Key(secret));
    await expect(jwtVerify(ours, new TextEncoder().encode(secret))).resolves.toMatchObject({ payload: { b: 2 } });
    await expect(jwtVerify(token, await hs256Key(`${secret}-other`))).rejects.toThrow();
  });

  it('keeps a bounded number of keys, and does not keep one WebCrypto refused', async () => {
    const first = hs256Key('secret-0-padding-padding-padding-padding');
    for (let i = 1; i <= 40; i++) await hs256Key(`secret-${i}-padding-padding-padding-padding`);
    expect(hs256Key('secret-0-padding-padding-padding-padding')).not.toBe(first);
    const refused = hs256Key('');
    await expect(refused).rejects.toThrow();
    expect(hs256Key('')).not.toBe(refused);
    await expect(hs256Key('')).rejects.toThrow();
  });
});
