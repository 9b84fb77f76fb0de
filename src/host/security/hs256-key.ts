/**
 * The HMAC-SHA-256 key of a shared secret, for signing and verifying HS256 tokens, imported once.
 * Given the secret's bytes, jose imports a WebCrypto key on every call: on Node that import was
 * about 100 µs of CPU, most of an authenticated request's cost in the bench (`npm run bench --
 * --only=http`). A key imported once is used as it is.
 *
 * Keys are kept per secret (the few a configuration holds: user tokens, device tokens, the access
 * keys); past `MAX_KEYS` distinct secrets the oldest is forgotten, so a caller that passes many
 * never grows this without bound.
 */
const MAX_KEYS = 16;
const keys = new Map<string, Promise<CryptoKey>>();

export function hs256Key(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
    key = crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    // A secret WebCrypto refuses is not kept: the next call tries again and fails the same way.
    key.catch(() => keys.delete(secret));
    keys.set(secret, key);
  }
  return key;
}
