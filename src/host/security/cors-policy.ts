/** Options of a CORS policy (config `Cors:AllowedOrigins`). */
export interface CorsPolicyOptions {
  /** Exact origins such as `https://app.example.com`, or `*` (only without credentials). */
  allowedOrigins: string[];
  /** Default GET, HEAD, POST, PUT, PATCH, DELETE. */
  allowedMethods?: string[];
  /** Request headers a page may send. Default authorization, content-type, traceparent, tracestate. */
  allowedHeaders?: string[];
  /** How long a browser may cache a preflight answer. Default 600. */
  maxAgeSeconds?: number;
  /** Lets pages send cookies and read responses to credentialed requests. Default false. */
  allowCredentials?: boolean;
  /** Response headers beyond the CORS-safelisted ones a page may read (e.g. `ETag`). Default none. */
  exposedHeaders?: string[];
}

export type CorsHeaders = Record<string, string>;

export interface CorsPolicy {
  /**
   * Headers for the 204 answer to a preflight, or null when the origin, method or any requested header
   * is not allowed: the answer then carries no CORS headers and the browser never sends the request.
   */
  preflight(
    origin: string | undefined,
    requestMethod: string | undefined,
    requestHeaders: string | undefined,
  ): CorsHeaders | null;
  /** Headers for an actual response: the allow headers, or only `Vary: Origin` for a disallowed origin. */
  actual(origin: string | undefined): CorsHeaders;
}

const DEFAULT_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const DEFAULT_HEADERS = ['authorization', 'content-type', 'traceparent', 'tracestate'];
/** Answers depend on Origin, so shared caches must not hand one origin's answer to another. */
const VARY = { Vary: 'Origin' };

/** Builds a CORS policy; throws on an origin that cannot be one, and on `*` combined with credentials. */
export function createCorsPolicy(options: CorsPolicyOptions): CorsPolicy {
  const { allowedOrigins, allowCredentials = false, maxAgeSeconds = 600 } = options;
  const anyOrigin = allowedOrigins.includes('*');
  if (anyOrigin && allowCredentials) {
    // Browsers refuse `*` on credentialed requests; echoing every origin instead would let any site act as the user.
    throw new TypeError('Cors:AllowedOrigins "*" cannot be combined with credentials');
  }
  const origins = new Set<string>();
  for (const entry of allowedOrigins) {
    if (entry === '*') continue;
    const normalized = normalizeOrigin(entry);
    if (normalized === null) throw new TypeError(`Cors:AllowedOrigins: "${entry}" is not an origin`);
    origins.add(normalized);
  }
  if (!Number.isInteger(maxAgeSeconds) || maxAgeSeconds < 0)
    throw new RangeError('maxAgeSeconds must be a non-negative integer');
  const methods = (options.allowedMethods ?? DEFAULT_METHODS).map((m) => m.toUpperCase());
  const headers = (options.allowedHeaders ?? DEFAULT_HEADERS).map((h) => h.toLowerCase());
  const headerSet = new Set(headers);
  const expose: CorsHeaders = options.exposedHeaders?.length
    ? { 'Access-Control-Expose-Headers': options.exposedHeaders.join(', ') }
    : {};

  function allowOrigin(origin: string | undefined): CorsHeaders | null {
    const normalized = origin === undefined ? null : normalizeOrigin(origin);
    if (normalized === null) return null;
    if (anyOrigin) return { 'Access-Control-Allow-Origin': '*' };
    if (!origins.has(normalized)) return null;
    const allow: CorsHeaders = { 'Access-Control-Allow-Origin': normalized };
    if (allowCredentials) allow['Access-Control-Allow-Credentials'] = 'true';
    return allow;
  }

  return {
    preflight(origin, requestMethod, requestHeaders) {
      const allow = allowOrigin(origin);
      if (!allow || !requestMethod || !methods.includes(requestMethod.toUpperCase())) return null;
      const requested = (requestHeaders ?? '')
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean);
      if (!requested.every((h) => headerSet.has(h))) return null;
      return {
        ...allow,
        'Access-Control-Allow-Methods': methods.join(', '),
        'Access-Control-Allow-Headers': headers.join(', '),
        'Access-Control-Max-Age': String(maxAgeSeconds),
        ...VARY,
      };
    },
    actual(origin) {
      const allow = allowOrigin(origin);
      return allow ? { ...allow, ...expose, ...VARY } : { ...VARY };
    },
  };
}

/**
 * `scheme://host[:port]` in lowercase without default port or trailing slash, or null when the value is
 * not an http(s) origin. The opaque origin `null` (sandboxed frames, files) is never an allowed origin.
 */
export function normalizeOrigin(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return null;
  return `${url.protocol}//${url.host}`;
}
