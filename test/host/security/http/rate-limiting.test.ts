// Rate limiting on the pipeline: 429 problem with Retry-After, partitions, leases released.
import { afterEach, describe, expect, it } from 'vitest';
import { Results } from '../../../../src/host/pipeline/results.js';
import {
  RateLimitPolicies,
  defaultRateLimitPolicies,
} from '../../../../src/host/security/http/default-rate-limit-policies.js';
import { byClientIp, byTenant, byUser } from '../../../../src/host/security/http/partition-keys.js';
import type { RateLimitingOptions } from '../../../../src/host/security/http/rate-limiting.js';
import { ConcurrencyLimiter } from '../../../../src/host/security/rate-limit/concurrency-limiter.js';
import { FixedWindowLimiter } from '../../../../src/host/security/rate-limit/fixed-window-limiter.js';
import { bearer, securedApp } from './secured-app.js';
import { serve, type Served } from './serve.js';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function start(rateLimits: RateLimitingOptions, map: (web: ReturnType<typeof securedApp>) => void) {
  const web = securedApp({ rateLimits });
  map(web);
  served = await serve(web);
  return served.url;
}

const anon = { allowAnonymous: true };

describe('429 problem with Retry-After', () => {
  it('signin (fixed window per IP, 10/min): the 11th request is refused until the window resets', async () => {
    // A frozen clock 30 s into a minute: the window cannot roll over while the test runs.
    let now = 1_760_000_010_000;
    const url = await start({ policies: defaultRateLimitPolicies({ clock: () => now }) }, (web) => {
      web.routes.post('/auth/signin', () => Results.noContent(), {
        metadata: { ...anon, rateLimit: RateLimitPolicies.signin },
      });
    });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await fetch(`${url}/auth/signin`, { method: 'POST' })).status);
    expect(statuses).toEqual(Array(10).fill(204));
    const res = await fetch(`${url}/auth/signin`, { method: 'POST' });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await res.json()).toMatchObject({
      status: 429,
      code: 'HUB_ERR_RATE_LIMITED',
      policy: 'signin',
      retryAfterSeconds: 30,
    });
    now += 29_999;
    expect((await fetch(`${url}/auth/signin`, { method: 'POST' })).status).toBe(429);
    now += 1;
    expect((await fetch(`${url}/auth/signin`, { method: 'POST' })).status).toBe(204);
  });

  it('functions (token bucket per user, 20 burst + 10/s): the 21st is refused; other users are unaffected', async () => {
    let now = 1_760_000_000_000;
    const url = await start({ policies: defaultRateLimitPolicies({ clock: () => now }) }, (web) => {
      web.routes.post('/api/negotiate', () => ({ url: 'ws://x' }), {
        metadata: { rateLimit: RateLimitPolicies.functions },
      });
    });
    const negotiate = async (headers: Record<string, string>) =>
      (await fetch(`${url}/api/negotiate`, { method: 'POST', headers })).status;
    const alice = await bearer('alice', 'acme');
    const statuses = await Promise.all(Array.from({ length: 20 }, () => negotiate(alice)));
    expect(statuses).toEqual(Array(20).fill(200));
    const refused = await fetch(`${url}/api/negotiate`, { method: 'POST', headers: alice });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await negotiate(await bearer('bob', 'acme'))).toBe(200);
    // One second later, ten more.
    now += 1000;
    const next = await Promise.all(Array.from({ length: 11 }, () => negotiate(alice)));
    expect(next.filter((s) => s === 200)).toHaveLength(10);
  });

  it('an endpoint without rateLimit metadata is only subject to the global limiter; rateLimit: false to none', async () => {
    const url = await start(
      {
        global: {
          createLimiter: () => new FixedWindowLimiter({ permitLimit: 2, windowMs: 60_000 }),
          partitionKey: byClientIp,
        },
        policies: {},
      },
      (web) => {
        web.routes.get('/a', () => 'a', { metadata: anon });
        web.routes.get('/health', () => 'ok', { metadata: { ...anon, rateLimit: false } });
      },
    );
    expect((await fetch(`${url}/a`)).status).toBe(200);
    expect((await fetch(`${url}/a`)).status).toBe(200);
    const refused = await fetch(`${url}/a`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ policy: 'global' });
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it('an unknown policy name is a 500, never a silently unlimited endpoint', async () => {
    const url = await start({ policies: {} }, (web) =>
      web.routes.get('/x', () => 'x', { metadata: { ...anon, rateLimit: 'typo' } }),
    );
    expect((await fetch(`${url}/x`)).status).toBe(500);
  });
});

describe('concurrency leases', () => {
  const concurrencyOne = (partitionKey = byUser) => ({
    createLimiter: () => new ConcurrencyLimiter({ permitLimit: 1 }),
    partitionKey,
  });

  it('a lease is held while the request runs and released when it finishes, even when the handler throws', async () => {
    let gate = deferred();
    let entered = deferred();
    const url = await start({ policies: { one: concurrencyOne(byClientIp) } }, (web) => {
      web.routes.get(
        '/slow',
        async () => {
          entered.resolve();
          await gate.promise;
          return 'done';
        },
        { metadata: { ...anon, rateLimit: 'one' } },
      );
      web.routes.get(
        '/throws',
        () => {
          throw new Error('boom');
        },
        { metadata: { ...anon, rateLimit: 'one' } },
      );
    });
    const first = fetch(`${url}/slow`);
    await entered.promise;
    const second = await fetch(`${url}/slow`);
    expect(second.status).toBe(429);
    // Free again depends on other requests, not on a clock: no Retry-After.
    expect(second.headers.get('retry-after')).toBeNull();
    gate.resolve();
    expect((await first).status).toBe(200);

    expect((await fetch(`${url}/throws`)).status).toBe(500);
    gate = deferred();
    entered = deferred();
    const third = fetch(`${url}/slow`);
    await entered.promise;
    gate.resolve();
    expect((await third).status).toBe(200);
  });

  it('a global lease is given back when the endpoint limiter refuses', async () => {
    const url = await start(
      {
        global: concurrencyOne(byClientIp),
        policies: {
          never: {
            createLimiter: () => new FixedWindowLimiter({ permitLimit: 1, windowMs: 3_600_000 }),
            partitionKey: byClientIp,
          },
        },
      },
      (web) => {
        web.routes.get('/limited', () => 'x', { metadata: { ...anon, rateLimit: 'never' } });
        web.routes.get('/free', () => 'y', { metadata: anon });
      },
    );
    expect((await fetch(`${url}/limited`)).status).toBe(200);
    expect((await fetch(`${url}/limited`)).status).toBe(429);
    // Had the refused request kept its global lease, this would be 429.
    expect((await fetch(`${url}/free`)).status).toBe(200);
  });
});

describe('partition keys', () => {
  it('by tenant: two users of one tenant share a partition, other tenants do not', async () => {
    const url = await start(
      {
        policies: {
          tenant: {
            createLimiter: () => new FixedWindowLimiter({ permitLimit: 1, windowMs: 3_600_000 }),
            partitionKey: byTenant,
          },
        },
      },
      (web) => web.routes.get('/t', () => 't', { metadata: { rateLimit: 'tenant' } }),
    );
    expect((await fetch(`${url}/t`, { headers: await bearer('alice', 'acme') })).status).toBe(200);
    expect((await fetch(`${url}/t`, { headers: await bearer('bob', 'acme') })).status).toBe(429);
    expect((await fetch(`${url}/t`, { headers: await bearer('alice', 'globex') })).status).toBe(200);
  });
});
