import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CachedTenantCatalogue } from '../../../src/features/gateway/cached-tenant-catalogue.js';
import { forwardedHeaders } from '../../../src/features/gateway/forwarded-headers.js';
import { createEdgeIdentity } from '../../../src/host/edge/edge-identity.js';
import { InstancePicker } from '../../../src/features/gateway/instance-picker.js';
import { parseStamps, parseTenantMap } from '../../../src/features/gateway/stamps.js';
import type { TenantCatalogue } from '../../../src/features/gateway/tenant-catalogue.js';
import { ManualClock } from '../../../src/adapters/memory/manual-clock.js';

describe('Gateway:Stamps and Gateway:Tenants', () => {
  it('parses pools and silos with their instances', () => {
    expect(parseStamps('pool-1=http://10.0.0.5:8080 http://10.0.0.6:8080/; silo-acme=https://acme.internal')).toEqual([
      { name: 'pool-1', instances: ['http://10.0.0.5:8080', 'http://10.0.0.6:8080'] },
      { name: 'silo-acme', instances: ['https://acme.internal'] },
    ]);
    expect(parseTenantMap('demo=pool-1, acme=silo-acme')).toEqual(
      new Map([
        ['demo', 'pool-1'],
        ['acme', 'silo-acme'],
      ]),
    );
  });

  it.each([
    ['', /at least one stamp/],
    ['pool=', /no instance/],
    ['=http://a', /stamp name/],
    ['pool=ftp://a', /http/],
    ['pool=http://a/path', /without path/],
    ['pool=http://u:p@a', /credentials/],
    ['a=http://x; a=http://y', /named twice/],
  ])('refuses %j with a reason', (raw, reason) => {
    expect(() => parseStamps(raw)).toThrow(reason);
  });
});

describe('InstancePicker', () => {
  it('round-robins without an affinity key', () => {
    const picker = new InstancePicker();
    const picks = [1, 2, 3, 4].map(() => picker.pick('s', ['a', 'b']));
    expect(picks).toEqual(['a', 'b', 'a', 'b']);
    expect(picker.pick('s', [])).toBeUndefined();
  });

  it('keeps a client on one instance, and moves only the clients of an instance that left', () => {
    const picker = new InstancePicker();
    const instances = ['http://a', 'http://b', 'http://c'];
    const clients = Array.from({ length: 60 }, (_, i) => `10.0.0.${i}`);
    const before = new Map(clients.map((c) => [c, picker.pick('s', instances, c)!]));
    for (const c of clients) expect(picker.pick('s', instances, c)).toBe(before.get(c));
    expect(new Set(before.values()).size).toBe(3);
    const after = new Map(clients.map((c) => [c, picker.pick('s', ['http://a', 'http://c'], c)!]));
    for (const c of clients) if (before.get(c) !== 'http://b') expect(after.get(c)).toBe(before.get(c));
  });
});

describe('forwarded headers', () => {
  /** What `look` says of a real request from 127.0.0.1 with the given headers, while it is open. */
  async function seen<T>(headers: Record<string, string>, look: (req: IncomingMessage) => T): Promise<T> {
    const server = createServer();
    const got = new Promise<T>((resolve) => server.once('request', (req, res) => (resolve(look(req)), res.end())));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    request({
      port: (server.address() as AddressInfo).port,
      host: '127.0.0.1',
      headers: { host: 'gw.example:8443', ...headers },
    }).end();
    const result = await got;
    server.close();
    return result;
  }

  it('from an untrusted peer: the client’s own forwarding is dropped and the chain starts at the peer', async () => {
    const headers = await seen(
      {
        'x-forwarded-for': '6.6.6.6',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
        forwarded: 'for=6.6.6.6',
      },
      (req) => forwardedHeaders(req, createEdgeIdentity()),
    );
    expect(headers).toEqual({
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'gw.example:8443',
      forwarded: 'for=127.0.0.1;proto=http;host="gw.example:8443"',
    });
  });

  it('from a trusted proxy: its chain is kept and this hop appended; its proto and host are the client’s', async () => {
    const headers = await seen(
      {
        'x-forwarded-for': '203.0.113.7',
        'x-forwarded-host': 'telemetry.example.com',
        'x-forwarded-proto': 'https',
        forwarded: 'for=203.0.113.7',
      },
      (req) => forwardedHeaders(req, createEdgeIdentity({ trustedProxies: ['127.0.0.1'] })),
    );
    expect(headers).toEqual({
      'x-forwarded-for': '203.0.113.7, 127.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'telemetry.example.com',
      forwarded: 'for=203.0.113.7, for=127.0.0.1;proto=https;host="telemetry.example.com"',
    });
  });
});

describe('CachedTenantCatalogue', () => {
  it('asks the database once per tenant within the cache time, then again', async () => {
    let queries = 0;
    let stamp = 'pool-1';
    const inner: TenantCatalogue = { stampOf: async () => (queries++, stamp) };
    const clock = new ManualClock();
    const cached = new CachedTenantCatalogue({ inner, ttlMs: 30_000, clock });
    expect(await Promise.all([cached.stampOf('t'), cached.stampOf('t')])).toEqual(['pool-1', 'pool-1']);
    expect(queries).toBe(1);
    stamp = 'silo-t';
    clock.advance(29_000);
    expect(await cached.stampOf('t')).toBe('pool-1');
    clock.advance(2_000);
    expect(await cached.stampOf('t')).toBe('silo-t');
    expect(queries).toBe(2);
  });

  it('does not remember a failed lookup, and holds at most maxEntries tenants', async () => {
    let fail = true;
    let queries = 0;
    const inner: TenantCatalogue = {
      stampOf: async (t) => {
        queries++;
        if (fail) throw new Error('database down');
        return t;
      },
    };
    const cached = new CachedTenantCatalogue({ inner, ttlMs: 60_000, clock: new ManualClock(), maxEntries: 2 });
    await expect(cached.stampOf('a')).rejects.toThrow('database down');
    fail = false;
    expect(await cached.stampOf('a')).toBe('a');
    await cached.stampOf('b');
    await cached.stampOf('c');
    queries = 0;
    await cached.stampOf('a');
    expect(queries).toBe(1);
  });
});
