import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** An IPv4 peer on a dual-stack socket shows up as ::ffff:a.b.c.d. */
export function peerAddress(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? '';
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}

function list(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined.split(',').map((s) => s.trim()).filter(Boolean);
}

/** RFC 7239 node: IPv6 in brackets and quotes. */
function node(address: string): string {
  return address.includes(':') ? `"[${address}]"` : address;
}

/**
 * The headers the gateway sends upstream in place of the client's forwarding headers. From a peer
 * in `Http:TrustedProxies` the chain it sent is kept and this hop appended; from anyone else the
 * client's own `Forwarded`/`X-Forwarded-*` are dropped (any client can write them) and the chain
 * starts at the peer. Proto and host are the ones the client used: the trusted proxy's last value,
 * else this connection's scheme and Host header.
 */
export function forwardedHeaders(req: IncomingMessage, trusted: boolean): Record<string, string> {
  const headers: IncomingHttpHeaders = req.headers;
  const peer = peerAddress(req);
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  const priorFor = trusted ? list(headers['x-forwarded-for']) : [];
  const proto = (trusted ? list(headers['x-forwarded-proto']).pop()?.toLowerCase() : undefined) ?? (encrypted ? 'https' : 'http');
  const host = (trusted ? list(headers['x-forwarded-host']).pop() : undefined) ?? headers.host ?? '';
  const priorForwarded = trusted ? list(headers['forwarded']) : [];
  const hop = `for=${node(peer)};proto=${proto === 'https' ? 'https' : 'http'}${host ? `;host="${host.replace(/["\\]/g, '')}"` : ''}`;
  return {
    'x-forwarded-for': [...priorFor, peer].join(', '),
    'x-forwarded-proto': proto === 'https' ? 'https' : 'http',
    'x-forwarded-host': host,
    forwarded: [...priorForwarded, hop].join(', '),
  };
}

/** The client's address as the first untrusted hop: the last X-Forwarded-For entry of a trusted peer, else the peer. */
export function clientAddress(req: IncomingMessage, trusted: boolean): string {
  return (trusted ? list(req.headers['x-forwarded-for']).pop() : undefined) ?? peerAddress(req);
}

/**
 * `traceparent` for the upstream call: the same trace (the id the gateway logged for this request)
 * with a new span id of the gateway's own, so the hub's server span is the gateway's child; the
 * caller's sampling flag is kept.
 */
export function childTraceparent(traceId: string, incoming: string | string[] | undefined): string {
  const header = Array.isArray(incoming) ? incoming[0] : incoming;
  const flags = header ? (TRACEPARENT.exec(header.trim().toLowerCase())?.[3] ?? '01') : '01';
  return `00-${traceId}-${randomBytes(8).toString('hex')}-${flags}`;
}
