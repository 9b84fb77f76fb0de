import type { IncomingMessage } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsQueryToken, presentedCredentials } from '../../../../src/host/edge/credentials.js';
import { createEdgeIdentity } from '../../../../src/host/edge/edge-identity.js';
import { isValidHost, requestHost } from '../../../../src/host/edge/host-header.js';
import { serializeSessionCookie, SESSION_COOKIE_NAME } from '../../../../src/host/security/cookie.js';
import { identify, userCredentialCheck } from '../../../../src/host/security/identify.js';
import { createJwtVerifier, signUserToken } from '../../../../src/host/security/jwt-bearer.js';
import { hostileText, RUNS, withinBudget } from './fuzz-support.js';

// Issue 25 item 6: the origin resolver and the credential parser, fuzzed. Whatever a client sends,
// no URL is built from a host that is not host[:port], and no identity comes out but the one the
// valid credentials presented all name.

const hostish = fc.oneof(
  hostileText(300),
  fc.constantFrom('hub:8080', 'hub.example', '[::1]:9', '127.0.0.1'),
  // Numeric labels: what a URL parser reads as an IPv4 address, in its odd forms too.
  fc
    .array(fc.oneof(fc.nat(300).map(String), fc.constantFrom('0x7f', '00', '0.00001', 'a1', '')), {
      minLength: 1,
      maxLength: 5,
    })
    .map((labels) => labels.join('.')),
  fc
    .tuple(
      fc.constantFrom('hub:8080', 'h'),
      fc.constantFrom('/api/hubs/x?', '\\api', '#', '?', '@evil', ' x', '/', ':99999'),
    )
    .map(([a, b]) => a + b),
);
const addresses = fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('127.0.0.1', '::ffff:127.0.0.1', '10.1.2.3'));

function request(peer: string, headers: Record<string, string>): IncomingMessage {
  return { headers, socket: { remoteAddress: peer } } as unknown as IncomingMessage;
}

describe('fuzz: the origin resolver', () => {
  const edge = createEdgeIdentity({ trustedProxies: ['127.0.0.1', '10.0.0.0/8'] });

  it('builds origins only from a well-formed host[:port]; a malformed Host is refused, never used', () => {
    fc.assert(
      fc.property(
        addresses,
        hostish,
        fc.option(hostish),
        fc.option(fc.oneof(hostileText(20), fc.constantFrom('http', 'https', 'HTTPS, http'))),
        (peer, host, forwardedHost, proto) => {
          const headers: Record<string, string> = { host };
          if (forwardedHost !== null) headers['x-forwarded-host'] = forwardedHost;
          if (proto !== null) headers['x-forwarded-proto'] = proto;
          const req = request(peer, headers);
          if (requestHost(headers) === null) {
            expect(() => edge.origin(req)).toThrow();
            return;
          }
          const origin = withinBudget(() => edge.origin(req));
          const match = /^(https?):\/\/(.*)$/.exec(origin);
          expect(match, origin).not.toBeNull();
          expect(isValidHost(match![2]!), origin).toBe(true);
          // What is built from it is the path we add, and nothing the client smuggled in.
          expect(new URL(`${origin}/client/hubs/telemetry`).pathname).toBe('/client/hubs/telemetry');
          if (!edge.peerTrusted(req)) expect(match![2]).toBe(host);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the client address is the peer, or from a trusted proxy an address it forwarded', () => {
    fc.assert(
      fc.property(addresses, fc.array(fc.oneof(addresses, hostileText(30)), { maxLength: 6 }), (peer, chain) => {
        const req = request(peer, { 'x-forwarded-for': chain.join(', ') });
        const address = withinBudget(() => edge.clientAddress(req));
        const peerPlain = peer.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
        if (!edge.peerTrusted(req)) expect(address).toBe(peerPlain);
        else
          expect([peerPlain, ...chain.map((c) => c.trim().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1'))]).toContain(
            address,
          );
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzz: the credential parser and identify', () => {
  const SECRET = 'edge-fuzz-secret-edge-fuzz-secret-0123456';
  const NOW = Date.now();
  const verifier = createJwtVerifier({ secret: SECRET, issuer: 'iss', audience: 'aud', now: () => NOW });
  const check = userCredentialCheck({ bearer: verifier, cookieSecret: SECRET, now: () => NOW });

  it('identifies a request only as the tenant every valid credential it carries (where it counts) names', async () => {
    const tokens = {
      A: await signUserToken({ sub: 'a', tenantId: 'tenant-a', secret: SECRET, issuer: 'iss', audience: 'aud' }),
      B: await signUserToken({ sub: 'b', tenantId: 'tenant-b', secret: SECRET, issuer: 'iss', audience: 'aud' }),
    };
    const cookies = {
      A: serializeSessionCookie({ sub: 'a', tenantId: 'tenant-a', roles: [], scheme: 'cookie' }, SECRET, {
        maxAgeSeconds: 600,
        secure: false,
        now: NOW,
      }).split(';')[0]!,
      B: serializeSessionCookie({ sub: 'b', tenantId: 'tenant-b', roles: [], scheme: 'cookie' }, SECRET, {
        maxAgeSeconds: 600,
        secure: false,
        now: NOW,
      }).split(';')[0]!,
    };
    const who = fc.constantFrom('A', 'B') as fc.Arbitrary<'A' | 'B'>;
    const authorization = fc.option(
      fc.oneof(
        who.map((t) => ({ tenant: t, value: `Bearer ${tokens[t]}` })),
        hostileText(100).map((value) => ({ tenant: null, value })),
      ),
    );
    const query = fc.option(
      fc.oneof(
        who.map((t) => ({ tenant: t, value: `access_token=${tokens[t]}` })),
        hostileText(100).map((value) => ({ tenant: null, value })),
      ),
    );
    const cookie = fc.option(
      fc.oneof(
        who.map((t) => ({ tenant: t, value: `theme=x; ${cookies[t]}` })),
        hostileText(100).map((value) => ({ tenant: null, value })),
      ),
    );
    const handshake = fc.record({
      upgrade: fc.boolean(),
      sse: fc.boolean(),
      path: fc.constantFrom('/v1/devices', '/socket.io/', '/client/hubs/telemetry'),
    });

    await fc.assert(
      fc.asyncProperty(authorization, query, cookie, handshake, async (auth, q, c, shape) => {
        const headers: Record<string, string> = {};
        if (auth) headers['authorization'] = auth.value;
        if (c) headers['cookie'] = c.value;
        if (shape.upgrade) Object.assign(headers, { connection: 'Upgrade', upgrade: 'websocket' });
        if (shape.sse) headers['accept'] = 'text/event-stream';
        const queryToken = acceptsQueryToken({ method: 'GET', headers, path: shape.path }, ['/socket.io/']);
        const presented = withinBudget(() =>
          presentedCredentials(headers, q?.value ?? '', { queryToken, cookieName: SESSION_COOKIE_NAME }),
        );
        const result = await identify(presented, check);
        if (result.kind !== 'identified') return;
        // Every valid credential that counts here names the identified tenant.
        const counted = [auth?.tenant, queryToken ? q?.tenant : undefined, c?.tenant].filter(
          (t): t is 'A' | 'B' => t === 'A' || t === 'B',
        );
        expect(counted.length).toBeGreaterThan(0);
        for (const t of counted) expect(result.identity.tenantId).toBe(t === 'A' ? 'tenant-a' : 'tenant-b');
        // And an Authorization header that is present but not a valid bearer never lets anything else through.
        if (auth && auth.tenant === null)
          throw new Error(`identified despite a bad Authorization header: ${auth.value}`);
      }),
      { numRuns: RUNS },
    );
  }, 60_000);
});
