/**
 * Token audiences, compared exactly as they are minted. The service signs URLs: `{base}/client/hubs/{hub}`
 * for clients, the request URL for the management API (the official SDK signs it with its query
 * string, `?api-version=…`; other callers sign it without). Only letter case and one trailing slash
 * of the path are forgiven: no URL parsing, so no `\` read as `/`, no dropped query or fragment, no
 * dot segments — an audience is for one endpoint and no other.
 */

/**
 * The bases a request's tokens may name: its origin (`Http:PublicBaseUrl`, a trusted proxy's
 * forwarded host, else the Host header) and http and https on the Host itself, since a
 * TLS-terminating proxy hides the scheme the client used. `host` must be a validated `host[:port]`.
 */
export function audienceBases(origin: string, host: string | undefined): string[] {
  const bases = new Set([origin.replace(/\/+$/, '').toLowerCase()]);
  if (host !== undefined && host !== '') {
    bases.add(`http://${host}`.toLowerCase());
    bases.add(`https://${host}`.toLowerCase());
  }
  return [...bases];
}

/** The audiences a client access token for `hub` may carry: `{base}/client/hubs/{hub}`. */
export function clientAudiences(bases: readonly string[], hub: string): string[] {
  return bases.map((base) => `${base}/client/hubs/${hub}`.toLowerCase());
}

/**
 * The audiences a management call may carry: `{base}{path}` and `{base}{path}?{query}` with the
 * path and query exactly as the request sent them.
 */
export function managementAudiences(bases: readonly string[], requestUrl: string): string[] {
  const q = requestUrl.indexOf('?');
  const path = trimSlash(q >= 0 ? requestUrl.slice(0, q) : requestUrl);
  const query = q >= 0 ? requestUrl.slice(q) : '';
  const out: string[] = [];
  for (const base of bases) {
    out.push(`${base}${path}`.toLowerCase());
    if (query.length > 1) out.push(`${base}${path}${query}`.toLowerCase());
  }
  return out;
}

/** True when the token's `aud` (a string, or an array of strings) is one of `expected`, exactly. */
export function audienceMatches(aud: unknown, expected: readonly string[]): boolean {
  const values = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  return values.some((v) => typeof v === 'string' && v.length <= 2048 && expected.includes(canonical(v)));
}

/** Lower case and no trailing slash at the end of the path (before any query). */
function canonical(aud: string): string {
  const q = aud.indexOf('?');
  return (q >= 0 ? trimSlash(aud.slice(0, q)) + aud.slice(q) : trimSlash(aud)).toLowerCase();
}

function trimSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}
