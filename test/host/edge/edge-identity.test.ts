import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createEdgeIdentity } from '../../../src/host/edge/edge-identity.js';
import { isValidHost, requestHost } from '../../../src/host/edge/host-header.js';

function req(peer: string, headers: Record<string, string | string[]>): IncomingMessage {
  return { headers, socket: { remoteAddress: peer } } as unknown as IncomingMessage;
}

describe('the Host header', () => {
  it.each(['hub', 'hub:8080', 'hub.example.com', 'hub.example.com.', '127.0.0.1:1', '[::1]:8080', '[2001:db8::1]'])(
    'accepts %s',
    (host) => {
      expect(isValidHost(host)).toBe(true);
    },
  );
  it.each([
    '0.0000010000000000000002',
    '1.2.3',
    '0x7f.1',
    '127.0.0.1.',
    '256.0.0.1',
    '',
    'hub:8080/api',
    'hub?',
    'hub#',
    'hub\\api',
    'user@hub',
    'hub:99999',
    'hub:',
    'hub:8080:1',
    'hu b',
    '[::1',
    '[0]',
    '[1:2:3]:80',
    '[::1:::]',
    'a'.repeat(256),
  ])('refuses %j', (host) => {
    expect(isValidHost(host)).toBe(false);
  });
  it('requestHost: undefined when absent (HTTP/1.0), null when malformed', () => {
    expect(requestHost({})).toBeUndefined();
    expect(requestHost({ host: 'hub:1/x' })).toBeNull();
    expect(requestHost({ host: 'hub:1' })).toBe('hub:1');
  });
});

describe('origin', () => {
  it('is Http:PublicBaseUrl when set, whatever the headers', () => {
    const edge = createEdgeIdentity({ publicBaseUrl: 'https://telemetry.example.com/', trustedProxies: ['10.0.0.1'] });
    expect(edge.origin(req('10.0.0.1', { host: 'x', 'x-forwarded-host': 'y' }))).toBe('https://telemetry.example.com');
  });
  it('believes X-Forwarded-Proto/Host only from a trusted proxy, and only a well-formed host', () => {
    const edge = createEdgeIdentity({ trustedProxies: ['10.0.0.0/8'] });
    const forwarded = { host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'public.example' };
    expect(edge.origin(req('10.1.2.3', forwarded))).toBe('https://public.example');
    expect(edge.origin(req('::ffff:10.1.2.3', forwarded))).toBe('https://public.example');
    expect(edge.origin(req('192.0.2.1', forwarded))).toBe('http://internal:8080');
    expect(edge.origin(req('10.1.2.3', { ...forwarded, 'x-forwarded-host': 'evil/path?' }))).toBe(
      'https://internal:8080',
    );
  });
  it('throws rather than build a URL from a malformed Host', () => {
    expect(() => createEdgeIdentity().origin(req('192.0.2.1', { host: 'hub/api?' }))).toThrow(/Host/);
  });
});

describe('clientAddress', () => {
  const edge = createEdgeIdentity({ trustedProxies: ['127.0.0.1', '10.0.0.0/8'] });
  it('is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(edge.clientAddress(req('192.0.2.7', { 'x-forwarded-for': '6.6.6.6' }))).toBe('192.0.2.7');
    expect(edge.clientAddress(req('::ffff:192.0.2.7', {}))).toBe('192.0.2.7');
  });
  it('is the rightmost X-Forwarded-For entry that is not itself a trusted proxy', () => {
    // client 203.0.113.9 → nginx 10.0.0.5 → gateway 127.0.0.1 → hub; a forged entry on the left is ignored.
    expect(edge.clientAddress(req('127.0.0.1', { 'x-forwarded-for': '6.6.6.6, 203.0.113.9, 10.0.0.5' }))).toBe(
      '203.0.113.9',
    );
    expect(edge.clientAddress(req('127.0.0.1', { 'x-forwarded-for': ['203.0.113.9', '10.0.0.5'] }))).toBe(
      '203.0.113.9',
    );
  });
  it('stops at an entry that is not an address, keeping the last good one', () => {
    expect(edge.clientAddress(req('127.0.0.1', { 'x-forwarded-for': 'garbage, 10.0.0.5' }))).toBe('10.0.0.5');
    expect(edge.clientAddress(req('127.0.0.1', {}))).toBe('127.0.0.1');
  });
});
