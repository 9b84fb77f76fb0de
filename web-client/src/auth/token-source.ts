/** Who the dashboard acts as, and the bearer token that proves it. */
export interface Credentials {
  token: string;
  tenantId: string;
  sub: string;
  /**
   * How they were obtained: `session` from the hub's session cookie (`/auth/token`), `dev` from the
   * development sign-in (`/auth/dev-token`), `token` the access token the user pasted (kept for this tab
   * when the hub cannot mint tokens). Decides whether the dashboard offers "Sign out".
   */
  via?: 'session' | 'dev' | 'token';
}

/** Where credentials come from. */
export type TokenSource = (fetchFn?: typeof fetch) => Promise<Credentials>;

/**
 * Thrown when no credentials can be obtained. `status` is what `/auth/dev-token` answered (404: the hub
 * maps no development sign-in, i.e. it is not in Development; 401/403: it refused the session cookie).
 */
export class SignInRequiredError extends Error {
  constructor(readonly status: number) {
    super(`sign-in required (HTTP ${status})`);
    this.name = 'SignInRequiredError';
  }

  /** The hub offers the development sign-in page (`/auth/signin`). */
  get devSignIn(): boolean {
    return this.status !== 404;
  }
}

/** The pasted token was refused (`POST /auth/session`): 401 for a bad or expired token, 429 when rate limited. */
export class TokenRefusedError extends Error {
  constructor(
    readonly status: number,
    /** Seconds to wait, from `Retry-After` (429). */
    readonly retryAfterSeconds?: number,
  ) {
    super(`the hub refused the access token (HTTP ${status})`);
    this.name = 'TokenRefusedError';
  }
}

/**
 * sessionStorage key of the pasted token, kept only for a hub that cannot mint tokens (it verifies
 * tokens with a JWKS: `/auth/token` is 404). Never in localStorage: it goes with the tab.
 */
export const PASTED_TOKEN_KEY = 'telemetry-hub.access-token';

const JSON_GET: RequestInit = {
  headers: { accept: 'application/json' },
  cache: 'no-store',
  credentials: 'same-origin',
};

/** GETs a `{ token, tenantId, sub }` endpoint: the credentials, or the status when it gave none. */
async function getCredentials(
  fetchFn: typeof fetch,
  url: string,
  via: Credentials['via'],
): Promise<Credentials | number> {
  const res = await fetchFn(url, JSON_GET);
  if (!res.ok) return res.status;
  try {
    const body = (await res.json()) as Partial<Credentials>;
    // Anything else (e.g. an HTML fallback page of a proxy) is not a sign-in.
    if (typeof body.token !== 'string' || typeof body.tenantId !== 'string') return 404;
    return { token: body.token, tenantId: body.tenantId, sub: typeof body.sub === 'string' ? body.sub : '', via };
  } catch {
    return 404;
  }
}

/** Reads a JWT's payload without verifying it (the hub verified it when the session was created). */
export function jwtClaims(token: string): Record<string, unknown> | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const binary = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const json = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const claims = JSON.parse(json) as unknown;
    return typeof claims === 'object' && claims !== null ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Credentials from a pasted token when it still names a tenant and has not expired, else null. */
function fromPastedToken(token: string, now: number): Credentials | null {
  const claims = jwtClaims(token);
  if (
    !claims ||
    typeof claims['tenant_id'] !== 'string' ||
    typeof claims['exp'] !== 'number' ||
    claims['exp'] * 1000 <= now
  )
    return null;
  return {
    token,
    tenantId: claims['tenant_id'],
    sub: typeof claims['sub'] === 'string' ? claims['sub'] : '',
    via: 'token',
  };
}

/**
 * The dashboard's token source, in order: the session cookie (`GET /auth/token`, a short-lived token
 * minted by the hub), the development sign-in (`GET /auth/dev-token`, Development only), then a token
 * pasted earlier in this tab (hubs that cannot mint tokens). Nothing → SignInRequiredError.
 */
export function hubTokenSource(storage: Storage | null, now: () => number = Date.now): TokenSource {
  return async (fetchFn = fetch) => {
    const session = await getCredentials(fetchFn, '/auth/token', 'session');
    if (typeof session !== 'number') return session;
    const dev = await getCredentials(fetchFn, '/auth/dev-token', 'dev');
    if (typeof dev !== 'number') return dev;
    const pasted = storage?.getItem(PASTED_TOKEN_KEY);
    if (pasted) {
      const credentials = fromPastedToken(pasted, now());
      if (credentials) return credentials;
      storage?.removeItem(PASTED_TOKEN_KEY);
    }
    throw new SignInRequiredError(dev);
  };
}

/** Development token source: `GET /auth/dev-token` → `{ token, tenantId, sub }`. */
export const devTokenSource: TokenSource = async (fetchFn = fetch) => {
  const dev = await getCredentials(fetchFn, '/auth/dev-token', 'dev');
  if (typeof dev === 'number') throw new SignInRequiredError(dev);
  return dev;
};

/**
 * Signs in with a user access token: `POST /auth/session` with it as the bearer token (the hub sets its
 * session cookie), then `GET /auth/token`. When the hub cannot mint tokens (404), the pasted token itself
 * is used, and kept in `storage` (sessionStorage) so a reload of this tab stays signed in.
 */
export async function signInWithToken(
  input: string,
  storage: Storage | null,
  fetchFn: typeof fetch = fetch,
  now: () => number = Date.now,
): Promise<Credentials> {
  // Pasted text often carries whitespace, or the whole header value.
  const token = input.trim().replace(/^Bearer\s+/i, '');
  const res = await fetchFn('/auth/session', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    cache: 'no-store',
    credentials: 'same-origin',
  });
  if (!res.ok) {
    const retryAfter = Number(res.headers.get('retry-after'));
    throw new TokenRefusedError(res.status, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined);
  }
  const minted = await getCredentials(fetchFn, '/auth/token', 'session');
  if (typeof minted !== 'number') {
    storage?.removeItem(PASTED_TOKEN_KEY);
    return minted;
  }
  if (minted !== 404) throw new SignInRequiredError(minted);
  const credentials = fromPastedToken(token, now());
  if (!credentials) throw new TokenRefusedError(401);
  storage?.setItem(PASTED_TOKEN_KEY, token);
  return credentials;
}

/** Ends the session: `DELETE /auth/session` (clears the cookie) and forgets a pasted token. */
export async function signOut(storage: Storage | null, fetchFn: typeof fetch = fetch): Promise<void> {
  storage?.removeItem(PASTED_TOKEN_KEY);
  const res = await fetchFn('/auth/session', { method: 'DELETE', cache: 'no-store', credentials: 'same-origin' });
  if (!res.ok) throw new Error(`sign-out failed (HTTP ${res.status})`);
}
