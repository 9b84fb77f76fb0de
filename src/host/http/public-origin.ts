import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** The base URL a client used to reach this request, e.g. `https://telemetry.example.com`. */
export type OriginResolver = (req: IncomingMessage) => string;

export interface PublicOriginOptions {
  /** `Http:PublicBaseUrl`: when set, it is the answer for every request. */
  readonly publicBaseUrl?: string | undefined;
  /** `Http:TrustedProxies`: peers whose X-Forwarded-Proto/Host are believed (IPs or CIDRs). */
  readonly trustedProxies?: readonly string[];
}

/**
 * Resolves the scheme and host clients see. Without configuration: the socket's scheme and the Host
 * header. A peer in `trustedProxies` may override both with X-Forwarded-Proto and X-Forwarded-Host;
 * when a header lists several values the last one counts (the one our proxy added), and anyone
 * else's forwarded headers are ignored, since any client can send them.
 */
export function createOriginResolver(options: PublicOriginOptions = {}): OriginResolver {
  const fixed = options.publicBaseUrl?.replace(/\/+$/, '');
  if (fixed !== undefined) return () => fixed;
  const trusted = blockListOf(options.trustedProxies ?? []);
  return (req) => {
    const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
    let scheme = encrypted ? 'https' : 'http';
    let host = req.headers.host ?? 'localhost';
    if (trusted !== undefined && isTrusted(trusted, req.socket.remoteAddress)) {
      const proto = lastValue(req.headers['x-forwarded-proto'])?.toLowerCase();
      if (proto === 'http' || proto === 'https') scheme = proto;
      const forwardedHost = lastValue(req.headers['x-forwarded-host']);
      if (forwardedHost !== undefined && HOST.test(forwardedHost)) host = forwardedHost;
    }
    return `${scheme}://${host}`;
  };
}

/** host[:port] or [ipv6][:port]: nothing that could smuggle a path or userinfo into a URL we build. */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

function lastValue(header: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(header) ? header.join(',') : header;
  const last = joined?.split(',').pop()?.trim();
  return last === '' ? undefined : last;
}

/** A predicate for `Http:TrustedProxies`: is this peer address one of them? Never true for an empty list. */
export function trustedPeers(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = blockListOf(entries);
  return (address) => list !== undefined && isTrusted(list, address);
}

function blockListOf(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

function isTrusted(list: BlockList, address: string | undefined): boolean {
  if (address === undefined) return false;
  // An IPv4 peer on a dual-stack socket shows up as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return list.check(mapped[1]!, 'ipv4');
  return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}
