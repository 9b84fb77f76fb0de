import type { IncomingHttpHeaders } from 'node:http';

/** A credential as the request presents it, before anything verifies it. */
export type Credential =
  /** `handshake`: a socket.io CONNECT packet's `auth.token`, socket.io's own place for a credential. */
  | { readonly kind: 'bearer'; readonly token: string; readonly from: 'header' | 'query' | 'handshake' }
  /** The session cookie; `header` is the whole Cookie header (the cookie scheme picks its value). */
  | { readonly kind: 'cookie'; readonly header: string };

/**
 * What a request presents, read the same way at every edge (hub HTTP, upgrades, socket.io,
 * the management API, the gateway, functions/), so the gateway routes by the credential the hub acts on.
 *
 * - An `Authorization` header decides alone when present: `Bearer <token>` or it is `malformed`
 *   (401), never a fall-back to the query or a cookie.
 * - Otherwise `access_token` in the query, where the caller accepts it (handshakes: WebSocket upgrades,
 *   socket.io's handshake requests, EventSource), since browsers cannot set headers there. One value,
 *   well-formed, or `malformed`. Anywhere else a token in the URL is not a credential: it would end
 *   up in logs and proxies.
 * - Otherwise the session cookie.
 *
 * `others` are the credentials presented besides the chosen one: whoever verifies the chosen one
 * also checks that none of them names another tenant (a request must not carry two identities).
 */
export interface PresentedCredentials {
  readonly chosen: Credential | null;
  readonly malformed: boolean;
  readonly others: readonly Credential[];
}

export interface CredentialOptions {
  /** Is `access_token` in the query a credential for this request? See `acceptsQueryToken`. */
  readonly queryToken: boolean;
  /** The session cookie's name; omitted → cookies are not credentials here. */
  readonly cookieName?: string;
}

const NONE: PresentedCredentials = Object.freeze({ chosen: null, malformed: false, others: Object.freeze([]) });
const MALFORMED: PresentedCredentials = Object.freeze({ chosen: null, malformed: true, others: Object.freeze([]) });
/** RFC 6750 b64token; real tokens are well under 8 KB and longer input is refused before any parsing. */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MAX_TOKEN_LENGTH = 8192;
const BEARER = /^Bearer +(\S+) *$/i;

/** The credentials of a request: its headers and its query string (without the `?`). */
export function presentedCredentials(
  headers: IncomingHttpHeaders,
  search: string | URLSearchParams,
  options: CredentialOptions,
): PresentedCredentials {
  const presented: Credential[] = [];
  const authorization = headers.authorization;
  let malformed = false;
  if (authorization !== undefined) {
    const token = bearerToken(authorization);
    if (token === null) malformed = true;
    else presented.push({ kind: 'bearer', token, from: 'header' });
  }
  if (options.queryToken) {
    const values = queryValues(search, 'access_token');
    if (values.length > 0) {
      const token = values.length === 1 && isToken(values[0]!) ? values[0]! : null;
      // A bad query token beside a header is not the credential acted on: the header decides.
      if (token === null) malformed ||= authorization === undefined;
      else presented.push({ kind: 'bearer', token, from: 'query' });
    }
  }
  if (options.cookieName !== undefined && hasCookie(headers.cookie, options.cookieName))
    presented.push({ kind: 'cookie', header: headers.cookie! });
  if (malformed) return MALFORMED;
  if (presented.length === 0) return NONE;
  return { chosen: presented[0]!, malformed: false, others: presented.slice(1) };
}

/** The token of an `Authorization: Bearer <token>` header, or null (the scheme is case-insensitive). */
export function bearerToken(authorization: string | string[] | undefined): string | null {
  if (typeof authorization !== 'string' || authorization.length > MAX_TOKEN_LENGTH + 16) return null;
  const token = BEARER.exec(authorization)?.[1];
  return token !== undefined && isToken(token) ? token : null;
}

/** Does an `Authorization` header name the Bearer scheme (well-formed or not)? Another scheme is no bearer token at all. */
export function isBearerScheme(authorization: string | undefined): boolean {
  return authorization !== undefined && /^bearer(?:\s|$)/i.test(authorization);
}

/**
 * Where the query's `access_token` is a credential: handshakes a browser cannot put a header on —
 * WebSocket upgrades, EventSource requests, and requests under `handshakePaths` (socket.io's
 * long-polling handshake, `/socket.io/`).
 */
export function acceptsQueryToken(
  request: { readonly method?: string | undefined; readonly headers: IncomingHttpHeaders; readonly path: string },
  handshakePaths: readonly string[] = [],
): boolean {
  const { headers } = request;
  if (headers.upgrade !== undefined && /(?:^|,)\s*upgrade\s*(?:,|$)/i.test(headers.connection ?? '')) return true;
  if (
    (request.method ?? 'GET').toUpperCase() === 'GET' &&
    (headers.accept ?? '').toLowerCase().includes('text/event-stream')
  )
    return true;
  return handshakePaths.some((prefix) => request.path.startsWith(prefix));
}

function isToken(value: string): boolean {
  return value.length > 0 && value.length <= MAX_TOKEN_LENGTH && TOKEN.test(value);
}

function queryValues(search: string | URLSearchParams, name: string): string[] {
  if (typeof search !== 'string') return search.getAll(name);
  // Most requests carry no token: skip parsing the query for them.
  if (!search.includes(name)) return [];
  return new URLSearchParams(search).getAll(name);
}

function hasCookie(header: string | undefined, name: string): boolean {
  if (header === undefined) return false;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return true;
  }
  return false;
}
