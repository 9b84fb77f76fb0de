/**
 * Token audiences. The service signs URLs: `{base}/client/hubs/{hub}` for clients, the request URL
 * for the management API (the official SDK signs it with its query string). Comparison ignores
 * the query, a trailing slash and letter case, and accepts both http and https for the same host
 * because a TLS-terminating proxy hides the scheme the client used.
 */

/** `scheme://host[:port]/path` lowercased, without query, fragment or trailing slash; undefined if not a URL. */
export function normalizeAudience(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const scheme = url.protocol === 'wss:' ? 'https:' : url.protocol === 'ws:' ? 'http:' : url.protocol;
  if (scheme !== 'http:' && scheme !== 'https:') return undefined;
  const path = url.pathname.replace(/\/+$/, '');
  return `${scheme}//${url.host}${path}`.toLowerCase();
}

/**
 * The audiences a request accepts for `path`: http and https on the request's own Host, plus
 * every configured public base URL (e.g. `https://telemetry.example.com`).
 */
export function expectedAudiences(path: string, host: string | undefined, publicBaseUrls: readonly string[] = []): string[] {
  const bases = [...publicBaseUrls.map((b) => b.replace(/\/+$/, ''))];
  if (host !== undefined && host !== '') bases.push(`http://${host}`, `https://${host}`);
  const out = new Set<string>();
  for (const base of bases) {
    const normalized = normalizeAudience(`${base}${path}`);
    if (normalized !== undefined) out.add(normalized);
  }
  return [...out];
}

/** True when the token's `aud` (string or array) names one of the expected audiences. */
export function audienceMatches(aud: unknown, expected: readonly string[]): boolean {
  const values = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return values.some((v) => {
    if (typeof v !== 'string') return false;
    const normalized = normalizeAudience(v);
    return normalized !== undefined && expected.includes(normalized);
  });
}
