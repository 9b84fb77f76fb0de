import { describe, expect, it, vi } from 'vitest';
import { listDevices, toEpochMs } from '../../web-client/src/api/devices-api';
import { HttpError } from '../../web-client/src/api/http-error';
import { createHubClient } from '../../web-client/src/api/hub-client';
import { jwtExpiryMs, Session } from '../../web-client/src/auth/session';
import {
  hubTokenSource,
  PASTED_TOKEN_KEY,
  SignInRequiredError,
  signInWithToken,
  signOut,
  TokenRefusedError,
} from '../../web-client/src/auth/token-source';
import { backoffMs } from '../../web-client/src/connection/backoff';
import { isReading } from '../../web-client/src/connection/reading-guard';
import { Interest } from '../../web-client/src/state/interest';
import { loadPreferences, PREFERENCES_KEY, savePreferences } from '../../web-client/src/state/preferences';
import { assignScales } from '../../web-client/src/ui/axis-scales';
import { isOnline, relativeTime, summarizeData } from '../../web-client/src/ui/format';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const jwt = (payload: object) => `h.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.s`;

describe('listDevices', () => {
  it('follows nextCursor through every page', async () => {
    const urls: string[] = [];
    const pages: Record<string, unknown> = {
      '': { items: [{ deviceId: 'a', lastSeen: 1, last: null }], nextCursor: 'c1' },
      c1: { items: [{ deviceId: 'b', lastSeen: '1970-01-01T00:00:00.002Z', last: null }], nextCursor: 'c2' },
      c2: { items: [{ deviceId: 'c', lastSeen: null, last: null }], nextCursor: null },
    };
    const fetchFn = async (url: string) => {
      urls.push(url);
      return json(pages[new URL(url, 'http://x').searchParams.get('cursor') ?? '']);
    };
    const all = [];
    for await (const page of listDevices(createHubClient(fetchFn), 1)) all.push(...page);
    expect(all.map((d) => [d.deviceId, d.lastSeen])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', null],
    ]);
    expect(urls).toEqual(['/v1/devices?limit=1', '/v1/devices?limit=1&cursor=c1', '/v1/devices?limit=1&cursor=c2']);
  });

  it('stops on a repeated cursor and reports problem codes', async () => {
    let n = 0;
    const looping = async () => (n++, json({ items: [], nextCursor: 'same' }));
    for await (const _ of listDevices(createHubClient(looping))) void _;
    expect(n).toBe(2);
    const failing = async () => json({ code: 'HUB_ERR_PAGE_CURSOR', detail: 'bad cursor', status: 400 }, 400);
    await expect(listDevices(createHubClient(failing)).next()).rejects.toMatchObject({
      status: 400,
      code: 'HUB_ERR_PAGE_CURSOR',
    });
    expect(toEpochMs('nope')).toBeNull();
    expect(new HttpError(500, 'X', 'm')).toBeInstanceOf(Error);
  });
});

describe('Session', () => {
  it('caches the token, shares one request and renews on 401', async () => {
    let issued = 0;
    const source = vi.fn(async () => ({ token: jwt({ exp: 2_000_000_000, n: ++issued }), tenantId: 'demo', sub: 'u' }));
    const seen: string[] = [];
    const fetchFn = (async (_url: string, init?: RequestInit) => {
      const auth = new Headers(init?.headers).get('authorization') ?? '';
      seen.push(auth);
      return new Response(null, { status: seen.length === 1 ? 401 : 200 });
    }) as typeof fetch;
    const s = new Session(source, fetchFn, () => 0);
    await Promise.all([s.token(), s.token()]);
    expect(source).toHaveBeenCalledTimes(1);
    const res = await s.fetch('/v1/devices');
    expect(res.status).toBe(200);
    expect(source).toHaveBeenCalledTimes(2);
    expect(seen[0]).not.toBe(seen[1]);
    expect(seen[1]).toMatch(/^Bearer h\./);
  });

  it('renews a token that is about to expire', async () => {
    const source = vi.fn(async () => ({ token: jwt({ exp: 100 }), tenantId: 'demo', sub: 'u' }));
    const s = new Session(source, fetch, () => 90_000);
    await s.token();
    await s.token();
    expect(source).toHaveBeenCalledTimes(2);
    expect(jwtExpiryMs(jwt({ exp: 100 }))).toBe(100_000);
    expect(jwtExpiryMs('garbage')).toBeNull();
  });
});

/** A fetch that answers by `METHOD path` from a table (404 otherwise) and records the calls. */
function routes(table: Record<string, () => Response>) {
  const calls: string[] = [];
  const fetchFn = (async (url: string, init?: RequestInit) => {
    const key = `${init?.method ?? 'GET'} ${url}`;
    calls.push(key + (new Headers(init?.headers).get('authorization') ? ' (bearer)' : ''));
    return table[key]?.() ?? json({ code: 'HUB_ERR_NOT_FOUND' }, 404);
  }) as typeof fetch;
  return { fetchFn, calls };
}

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    key: (i: number) => [...m.keys()][i] ?? null,
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
    clear: () => m.clear(),
  };
}

describe('hubTokenSource and sign-in with a token', () => {
  const minted = { token: jwt({ exp: 2_000_000_000 }), tenantId: 'acme', sub: 'alice' };
  const pasted = jwt({ sub: 'dana', tenant_id: 'acme', exp: 2_000_000_000 });
  const now = () => 1_900_000_000_000;

  it('tries the session first, then the development token, then a token pasted in this tab', async () => {
    const session = routes({ 'GET /auth/token': () => json(minted) });
    expect(await hubTokenSource(null, now)(session.fetchFn)).toEqual({ ...minted, via: 'session' });
    expect(session.calls).toEqual(['GET /auth/token']);

    const dev = routes({
      'GET /auth/token': () => json({}, 401),
      'GET /auth/dev-token': () => json({ token: 't', tenantId: 'demo', sub: 'dev-user' }),
    });
    expect(await hubTokenSource(null, now)(dev.fetchFn)).toMatchObject({ tenantId: 'demo', via: 'dev' });

    const storage = memoryStorage();
    storage.setItem(PASTED_TOKEN_KEY, pasted);
    const jwks = routes({ 'GET /auth/token': () => json({}, 404) });
    expect(await hubTokenSource(storage, now)(jwks.fetchFn)).toEqual({
      token: pasted,
      tenantId: 'acme',
      sub: 'dana',
      via: 'token',
    });
  });

  it('without any: SignInRequiredError, with the dev-token status telling whether a development sign-in exists; an expired pasted token is dropped', async () => {
    const storage = memoryStorage();
    storage.setItem(PASTED_TOKEN_KEY, jwt({ sub: 'dana', tenant_id: 'acme', exp: 1 }));
    const production = routes({ 'GET /auth/token': () => json({}, 401) });
    const err = await hubTokenSource(storage, now)(production.fetchFn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SignInRequiredError);
    expect(err).toMatchObject({ status: 404, devSignIn: false });
    expect(storage.length).toBe(0);
    const refused = routes({ 'GET /auth/token': () => json({}, 401), 'GET /auth/dev-token': () => json({}, 401) });
    await expect(hubTokenSource(null, now)(refused.fetchFn)).rejects.toMatchObject({ status: 401, devSignIn: true });
    // A 200 that is not credentials (a proxy's HTML page) is no sign-in either.
    const html = routes({
      'GET /auth/token': () => new Response('<html>', { headers: { 'content-type': 'text/html' } }),
    });
    await expect(hubTokenSource(null, now)(html.fetchFn)).rejects.toBeInstanceOf(SignInRequiredError);
  });

  it('signInWithToken: POST /auth/session with the token as bearer, then /auth/token; the pasted token is not kept', async () => {
    const storage = memoryStorage();
    const hub = routes({
      'POST /auth/session': () => new Response(null, { status: 204 }),
      'GET /auth/token': () => json(minted),
    });
    expect(await signInWithToken(`  Bearer ${pasted}\n`, storage, hub.fetchFn, now)).toEqual({
      ...minted,
      via: 'session',
    });
    expect(hub.calls).toEqual(['POST /auth/session (bearer)', 'GET /auth/token']);
    expect(storage.length).toBe(0);
  });

  it('signInWithToken on a hub that cannot mint tokens (404) keeps the pasted token for this tab; sign-out forgets it', async () => {
    const storage = memoryStorage();
    const hub = routes({
      'POST /auth/session': () => new Response(null, { status: 204 }),
      'DELETE /auth/session': () => new Response(null, { status: 204 }),
    });
    expect(await signInWithToken(pasted, storage, hub.fetchFn, now)).toEqual({
      token: pasted,
      tenantId: 'acme',
      sub: 'dana',
      via: 'token',
    });
    expect(storage.getItem(PASTED_TOKEN_KEY)).toBe(pasted);
    await signOut(storage, hub.fetchFn);
    expect(storage.length).toBe(0);
    expect(hub.calls.at(-1)).toBe('DELETE /auth/session');
  });

  it('signInWithToken reports a refused token (401) and the rate limit (429 with Retry-After)', async () => {
    const refused = routes({ 'POST /auth/session': () => json({ code: 'HUB_ERR_AUTH_INVALID_TOKEN' }, 401) });
    await expect(signInWithToken('x.y.z', null, refused.fetchFn)).rejects.toMatchObject({
      name: 'TokenRefusedError',
      status: 401,
    });
    const limited = routes({
      'POST /auth/session': () => new Response('{}', { status: 429, headers: { 'retry-after': '42' } }),
    });
    const err = await signInWithToken('x.y.z', null, limited.fetchFn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TokenRefusedError);
    expect(err).toMatchObject({ status: 429, retryAfterSeconds: 42 });
  });
});

describe('Interest', () => {
  it('subscribes the union of followed and visible rows, with a linger on scroll-out', () => {
    vi.useFakeTimers();
    try {
      const calls: string[] = [];
      const sink = {
        subscribe: (id: string) => calls.push(`+${id}`),
        unsubscribe: (id: string) => calls.push(`-${id}`),
      };
      const i = new Interest(sink, 1000, globalThis as unknown as Window);
      i.setInView('a', true);
      i.setFollowed('a', true);
      i.setInView('a', false);
      i.setFollowed('b', true);
      i.setInView('c', true);
      i.setInView('c', false);
      expect(calls).toEqual(['+a', '+b', '+c']);
      vi.advanceTimersByTime(1000);
      expect(calls).toEqual(['+a', '+b', '+c', '-c']);
      i.setFollowed('a', false);
      expect(calls.at(-1)).toBe('-a');
      const other: string[] = [];
      i.rebind({ subscribe: (id) => other.push(id), unsubscribe: () => {} });
      expect(other).toEqual(['b']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('preferences', () => {
  it('round-trips and falls back per field on bad data', () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
    };
    expect(loadPreferences(storage)).toEqual({ mode: 'socket', followed: [], windowMs: 300_000 });
    savePreferences(storage, { mode: 'serverless', followed: ['a', 'b'], windowMs: 60_000 });
    expect(loadPreferences(storage)).toEqual({ mode: 'serverless', followed: ['a', 'b'], windowMs: 60_000 });
    store.set(PREFERENCES_KEY, JSON.stringify({ mode: 'carrier-pigeon', followed: ['a', 3, 'a'], windowMs: 7 }));
    expect(loadPreferences(storage)).toEqual({ mode: 'socket', followed: ['a'], windowMs: 300_000 });
    store.set(PREFERENCES_KEY, '{not json');
    expect(loadPreferences(storage).mode).toBe('socket');
    expect(() =>
      savePreferences(
        {
          setItem: () => {
            throw new Error('full');
          },
        },
        loadPreferences(null),
      ),
    ).not.toThrow();
  });
});

describe('small helpers', () => {
  it('formats presence and relative time', () => {
    expect(isOnline(null, 0)).toBe(false);
    expect(isOnline(1000, 10_999)).toBe(true);
    expect(isOnline(1000, 11_000)).toBe(false);
    expect(relativeTime(null, 0)).toBe('never');
    expect(relativeTime(0, 500)).toBe('just now');
    expect(relativeTime(0, 4_000)).toBe('4 s ago');
    expect(relativeTime(0, 180_000)).toBe('3 min ago');
    expect(relativeTime(0, 7_200_000)).toBe('2 h ago');
    expect(relativeTime(0, 3 * 86_400_000)).toBe('3 d ago');
    expect(summarizeData({ a: 1.234, b: 'x', c: true, d: {} }, 3)).toBe('a 1.23 · b x · c true · +1');
  });

  it('validates readings, bounds backoff and splits axes by magnitude', () => {
    expect(isReading({ deviceId: 'd', seq: 1, ts: 2, receivedAt: 3, data: {} })).toBe(true);
    expect(isReading({ deviceId: 'd', seq: '1', ts: 2, data: {} })).toBe(false);
    expect(isReading(null)).toBe(false);
    for (let a = 1; a < 20; a++) {
      expect(backoffMs(a, 1000, 30_000, () => 1)).toBeLessThanOrEqual(37_500);
      expect(backoffMs(a, 1000, 30_000, () => 0)).toBeGreaterThanOrEqual(750);
    }
    const latest = new Map([
      ['t', 21],
      ['h', 45],
      ['p', 1013],
      ['e', 0],
    ]);
    expect(assignScales(['t', 'h', 'p', 'e'], latest)).toEqual(['y', 'y', 'y2', 'y']);
  });
});
