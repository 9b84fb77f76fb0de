import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';
import { freePort } from '../../support/private-server.js';
import { deleteKeys, redisOrReport, REDIS_URL, testRedis } from '../../adapters/eventhubs/redis-for-tests.js';

type Page = { items: { deviceId: string }[] };

describe('output cache in memory, on the hub’s clock: GET /v1/devices (policy devices-list, 1 s)', () => {
  const clock = new ManualClock(Date.now());
  let hub: RunningApp;
  beforeAll(async () => {
    hub = await startApp([], undefined, clock);
  });
  afterAll(async () => hub?.stop());

  const seen = (tenantId: string, deviceId: string) =>
    hub.app.telemetry.registry.record({
      tenantId,
      deviceId,
      seq: 1,
      ts: clock.now(),
      receivedAt: clock.now(),
      data: { v: 1 },
    });
  async function list(tenant: string, query = '', headers: Record<string, string> = {}) {
    const res = await fetch(`${hub.url}/v1/devices${query}`, {
      headers: { authorization: `Bearer ${await userToken(tenant)}`, ...headers },
    });
    return { res, ids: ((await res.json()) as Page).items.map((i) => i.deviceId) };
  }

  it('answers from the cache while fresh (the endpoint does not run), whatever the request’s Cache-Control says', async () => {
    seen('oc-a', 'd1');
    const first = await list('oc-a');
    expect(first.ids).toEqual(['d1']);
    expect(first.res.headers.get('age')).toBeNull();

    seen('oc-a', 'd2');
    // The endpoint would list d2 now: an answer without it came from the cache.
    for (const headers of [
      {},
      { 'cache-control': 'no-cache' },
      { 'cache-control': 'no-store, max-age=0' },
      { pragma: 'no-cache' },
    ] as Record<string, string>[]) {
      const hit = await list('oc-a', '', headers);
      expect(hit.ids, JSON.stringify(headers)).toEqual(['d1']);
      expect(hit.res.headers.get('age')).toBe('0');
    }
    clock.advance(1001);
    expect((await list('oc-a')).ids).toEqual(['d1', 'd2']);
  });

  it('states a private policy with a strong ETag, and answers a matching If-None-Match with 304 on a hit and on a miss', async () => {
    seen('oc-f', 'd1');
    const first = await list('oc-f');
    expect(first.res.headers.get('cache-control')).toBe('private, no-cache');
    expect(first.res.headers.get('vary')).toMatch(/\bAuthorization, Cookie\b/);
    const etag = first.res.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const token = await userToken('oc-f');
    const hit = await fetch(`${hub.url}/v1/devices`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': etag },
    });
    expect(hit.status).toBe(304);
    expect(hit.headers.get('age')).toBe('0');
    expect(await hit.text()).toBe('');
    clock.advance(1001);
    const miss = await fetch(`${hub.url}/v1/devices`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': etag },
    });
    expect(miss.status).toBe(304);
    expect(miss.headers.get('age')).toBeNull();
    seen('oc-f', 'd2');
    clock.advance(1001);
    const changed = await fetch(`${hub.url}/v1/devices`, {
      headers: { authorization: `Bearer ${token}`, 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('never serves one tenant’s cached answer to another tenant', async () => {
    seen('oc-b', 'b-only');
    seen('oc-c', 'c-only');
    expect((await list('oc-b')).ids).toEqual(['b-only']);
    expect((await list('oc-c')).ids).toEqual(['c-only']);
    expect((await list('oc-b')).ids).toEqual(['b-only']);
  });

  it('keeps an entry per varied query value (limit, cursor), and ignores other query keys', async () => {
    seen('oc-d', 'd1');
    seen('oc-d', 'd2');
    expect((await list('oc-d', '?limit=1')).ids).toEqual(['d1']);
    expect((await list('oc-d', '?limit=2')).ids).toEqual(['d1', 'd2']);
    seen('oc-d', 'd0');
    // Same varied values, another unrelated key: the same entry.
    expect((await list('oc-d', '?limit=1&utm=x')).ids).toEqual(['d1']);
  });

  it('stores no error: a 400 is answered afresh, and a 401 never reaches the cache', async () => {
    const bad = await fetch(`${hub.url}/v1/devices?limit=0`, {
      headers: { authorization: `Bearer ${await userToken('oc-e')}` },
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('cache-control')).toBe('no-store');
    seen('oc-a', 'd3');
    expect((await fetch(`${hub.url}/v1/devices`)).status).toBe(401);
  });
});

describe('output cache and CORS', () => {
  let hub: RunningApp;
  beforeAll(async () => {
    hub = await startApp(
      ['--Cors:AllowedOrigins=https://a.example,https://b.example'],
      undefined,
      new ManualClock(Date.now()),
    );
  });
  afterAll(async () => hub?.stop());

  it('answers a hit with the CORS headers of the asking origin, not of the one whose request was stored', async () => {
    const token = await userToken('oc-cors');
    const asOrigin = (origin: string) =>
      fetch(`${hub.url}/v1/devices`, { headers: { authorization: `Bearer ${token}`, origin } });
    const stored = await asOrigin('https://a.example');
    expect(stored.headers.get('access-control-allow-origin')).toBe('https://a.example');
    const hit = await asOrigin('https://b.example');
    expect(hit.headers.get('age')).toBe('0');
    expect(hit.headers.get('access-control-allow-origin')).toBe('https://b.example');
    const refused = await asOrigin('https://evil.example');
    expect(refused.headers.get('age')).toBe('0');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});

if (await redisOrReport('output cache shared through Redis')) {
  describe('output cache in Redis, shared by two instances: GET /v1/firmware (policy firmware-list)', () => {
    const hubName = `oc${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const storage = [mkdtempSync(join(tmpdir(), 'oc-a-')), mkdtempSync(join(tmpdir(), 'oc-b-'))];
    let a: RunningApp;
    let b: RunningApp;
    let admin: string;
    beforeAll(async () => {
      const args = (dir: string) => [
        `--ConnectionStrings:redis=${REDIS_URL}`,
        `--Hub:Name=${hubName}`,
        `--Storage:Path=${dir}`,
      ];
      [a, b] = await Promise.all([startApp(args(storage[0]!)), startApp(args(storage[1]!))]);
      admin = await userToken('shared', { roles: ['admin'] });
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      const redis = testRedis();
      await redis.connect();
      await deleteKeys(redis, `telemetry-hub:${hubName}:`);
      await redis.quit();
      for (const dir of storage) rmSync(dir, { recursive: true, force: true });
    });

    const names = async (hub: RunningApp, token = admin) => {
      const res = await fetch(`${hub.url}/v1/firmware`, { headers: { authorization: `Bearer ${token}` } });
      return {
        age: res.headers.get('age'),
        names: ((await res.json()) as { items: { name: string }[] }).items.map((i) => i.name),
      };
    };
    const upload = (hub: RunningApp, name: string) =>
      fetch(`${hub.url}/v1/firmware/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${admin}` },
        body: Buffer.from(name),
      });

    it('serves an answer one instance stored from the other without running its endpoint, and a tag eviction on either reaches both', async () => {
      // Each instance keeps its firmware records in its own memory, so each endpoint would answer differently.
      expect((await upload(a, 'on-a.bin')).status).toBe(201);
      const fromA = await names(a);
      expect(fromA).toEqual({ age: null, names: ['on-a.bin'] });
      const fromB = await names(b);
      expect(fromB.names).toEqual(['on-a.bin']);
      expect(fromB.age).not.toBeNull();

      // An upload on B evicts the tenant's list in Redis: B runs its endpoint (its records: on-b.bin
      // only), and A, whose own endpoint would say on-a.bin, is served B's answer.
      expect((await upload(b, 'on-b.bin')).status).toBe(201);
      expect(await names(b)).toEqual({ age: null, names: ['on-b.bin'] });
      expect((await names(a)).names).toEqual(['on-b.bin']);
    });

    it('keys entries by tenant in the shared store too', async () => {
      const other = await userToken('shared-other', { roles: ['admin'] });
      expect((await names(a)).names.length).toBeGreaterThan(0);
      expect((await names(b, other)).names).toEqual([]);
    });
  });
}

describe('caches configured with a Redis that is down', () => {
  let hub: RunningApp;
  const storage = mkdtempSync(join(tmpdir(), 'oc-down-'));
  beforeAll(async () => {
    // Nothing listens there: every cache call fails at once and counts as a miss.
    hub = await startApp([
      `--ConnectionStrings:redis=redis://127.0.0.1:${await freePort()}`,
      `--Storage:Path=${storage}`,
    ]);
  });
  afterAll(async () => {
    await hub?.stop();
    rmSync(storage, { recursive: true, force: true });
  });

  it('answers every request from the endpoint, and logs the outage once rather than per request', async () => {
    const admin = await userToken('down', { roles: ['admin'] });
    const headers = { authorization: `Bearer ${admin}` };
    expect((await fetch(`${hub.url}/v1/firmware/a.bin`, { method: 'PUT', headers, body: 'abc' })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const list = await fetch(`${hub.url}/v1/firmware`, { headers });
      expect(list.status).toBe(200);
      expect(list.headers.get('age')).toBeNull();
      expect(((await list.json()) as { items: { name: string }[] }).items.map((x) => x.name)).toEqual(['a.bin']);
      const file = await fetch(`${hub.url}/v1/firmware/a.bin`, { headers });
      expect(await file.text()).toBe('abc');
    }
    expect(hub.logs.filter((l) => l.msg === 'cache store unavailable; answering without it').length).toBe(1);
  });
});
