import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { peerAddress, type EdgeIdentity } from '../../host/edge/edge-identity.js';

function list(header: string | string[] | undefined): string[] {
  const joined = Array.isArray(header) ? header.join(',') : (header ?? '');
  return joined
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** RFC 7239 node: IPv6 in brackets and quotes. */
function node(address: string): string {
  return address.includes(':') ? `"[${address}]"` : address;
}

/**
 * The headers the gateway sends upstream in place of the client's forwarding headers. From a peer
 * in `Http:TrustedProxies` the chain it sent is kept and this hop appended; from anyone else the
 * client's own `Forwarded`/`X-Forwarded-*` are dropped (any client can write them) and the chain
 * starts at the peer. Proto and host are the origin the client used, as the edge identity resolves
 * it (validated: never a malformed Host passed on).
 */
export function forwardedHeaders(req: IncomingMessage, edge: EdgeIdentity): Record<string, string> {
  const headers: IncomingHttpHeaders = req.headers;
  const trusted = edge.peerTrusted(req);
  const peer = peerAddress(req);
  const origin = new URL(edge.origin(req));
  const proto = origin.protocol === 'https:' ? 'https' : 'http';
  const priorFor = trusted ? list(headers['x-forwarded-for']) : [];
  const priorForwarded = trusted ? list(headers['forwarded']) : [];
  const hop = `for=${node(peer)};proto=${proto};host="${origin.host}"`;
  return {
    'x-forwarded-for': [...priorFor, peer].join(', '),
    'x-forwarded-proto': proto,
    'x-forwarded-host': origin.host,
    forwarded: [...priorForwarded, hop].join(', '),
  };
}
