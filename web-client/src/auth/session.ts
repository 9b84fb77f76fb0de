import type { Credentials, TokenSource } from './token-source';

/** Refresh this long before `exp` so a token never expires mid-handshake. */
const EXPIRY_MARGIN_MS = 60_000;

/** Reads `exp` (seconds) from a JWT payload without verifying it; the server verifies. */
export function jwtExpiryMs(token: string): number | null {
  const part = token.split('.')[1];
  if (!part) return null;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : null;
  } catch {
    return null;
  }
}

/** Caches credentials from a TokenSource, renews them near expiry or on 401, and signs HTTP calls. */
export class Session {
  private current: Credentials | null = null;
  private pending: Promise<Credentials> | null = null;

  constructor(
    private readonly source: TokenSource,
    private readonly fetchFn: typeof fetch = (...args) => fetch(...args),
    private readonly now: () => number = Date.now,
  ) {}

  /** Current credentials; fetched when missing, near expiry or when `refresh` is set. */
  async credentials(refresh = false): Promise<Credentials> {
    const c = this.current;
    if (!refresh && c) {
      const exp = jwtExpiryMs(c.token);
      if (exp === null || exp - this.now() > EXPIRY_MARGIN_MS) return c;
    }
    // Concurrent callers (list, socket handshake, negotiate) share one request.
    this.pending ??= this.source(this.fetchFn).then(
      (fresh) => {
        this.current = fresh;
        this.pending = null;
        return fresh;
      },
      (err: unknown) => {
        this.pending = null;
        throw err;
      },
    );
    return this.pending;
  }

  /** Uses credentials obtained elsewhere (a sign-in with a pasted token) until they near expiry. */
  adopt(credentials: Credentials): void {
    this.current = credentials;
  }

  async token(refresh = false): Promise<string> {
    return (await this.credentials(refresh)).token;
  }

  /** `fetch` with `Authorization: Bearer`; retried once with a fresh token on 401. */
  async fetch(input: string, init: RequestInit = {}): Promise<Response> {
    const send = async (refresh: boolean) => {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${await this.token(refresh)}`);
      return this.fetchFn(input, { ...init, headers });
    };
    const res = await send(false);
    return res.status === 401 ? send(true) : res;
  }
}
