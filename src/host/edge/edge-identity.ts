import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { isValidHost } from './host-header.js';
import { trustedProxies, unmappedAddress } from './trusted-proxies.js';

export interface EdgeIdentityOptions {
  /** `Http:PublicBaseUrl`: when set, the origin of every request, whatever its headers say. */
  readonly publicBaseUrl?: string | undefined;
  /** `Http:TrustedProxies`: peers whose X-Forwarded-For/Proto/Host are believed (IPs or CIDRs). */
  readonly trustedProxies?: readonly string[];
}

/**
 * Where a request comes from, decided once for every edge (hub HTTP, upgrades, socket.io, the
 * management API, the gateway): the base URL the client used and the client's address. Forwarding
 * headers count only from `Http:TrustedProxies`, since any client can send them.
 */
export interface EdgeIdentity {
  /**
   * The base URL the client used, e.g. `https://telemetry.example.com`: `Http:PublicBaseUrl` when
   * set; else the socket's scheme and the Host header, overridden by a trusted proxy's
   * X-Forwarded-Proto/Host (last value; a malformed forwarded host is ignored). Throws when the Host
   * header is malformed: the server refuses such requests before anything asks (400).
   */
  origin(req: IncomingMessage): string;
  /**
   * The client's address: the peer, or, from a trusted proxy, the rightmost X-Forwarded-For entry
   * that is not itself a trusted proxy (client → nginx → gateway → hub gives the client).
   */
  clientAddress(req: IncomingMessage): string;
  /** Is the peer one of `Http:TrustedProxies`? */
  peerTrusted(req: IncomingMessage): boolean;
}

export function createEdgeIdentity(options: EdgeIdentityOptions = {}): EdgeIdentity {
  const fixed = options.publicBaseUrl?.replace(/\/+$/, '');
  const trusted = trustedProxies(options.trustedProxies ?? []);
  const peerTrusted = (req: IncomingMessage) => trusted.has(req.socket.remoteAddress);
  return {
    peerTrusted,
    origin(req) {
      if (fixed !== undefined) return fixed;
      let scheme = (req.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
      const host = req.headers.host ?? 'localhost';
      if (!isValidHost(host)) throw new Error('the Host header is malformed; the request should have been refused');
      if (!peerTrusted(req)) return `${scheme}://${host}`;
      const proto = lastValue(req.headers['x-forwarded-proto'])?.toLowerCase();
      if (proto === 'http' || proto === 'https') scheme = proto;
      const forwardedHost = lastValue(req.headers['x-forwarded-host']);
      return `${scheme}://${forwardedHost !== undefined && isValidHost(forwardedHost) ? forwardedHost : host}`;
    },
    clientAddress(req) {
      let address = peerAddress(req);
      if (!trusted.has(address)) return address;
      const hops = listOf(req.headers['x-forwarded-for']);
      for (let i = hops.length - 1; i >= 0; i--) {
        const hop = unmappedAddress(hops[i]!);
        if (isIP(hop) === 0) break;
        address = hop;
        if (!trusted.has(hop)) break;
      }
      return address;
    },
  };
}

/** The TCP peer's address (an IPv4 peer of a dual-stack socket without its ::ffff: prefix). */
export function peerAddress(req: IncomingMessage): string {
  return unmappedAddress(req.socket.remoteAddress ?? 'unknown');
}

function listOf(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function lastValue(header: string | string[] | undefined): string | undefined {
  return listOf(header).pop();
}
