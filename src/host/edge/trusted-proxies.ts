import { BlockList, isIP } from 'node:net';

/** `Http:TrustedProxies`: the peers whose forwarding headers (X-Forwarded-*, Forwarded) are believed. */
export interface TrustedProxies {
  /** Is this peer address one of them? Never true for an empty list. */
  has(address: string | undefined): boolean;
}

/** IPs and CIDRs, IPv4 or IPv6. Throws on an entry that is neither (the config loader names the key). */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  if (entries.length === 0) return { has: () => false };
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const family = isIP(address);
    if (family === 0) throw new TypeError(`'${entry}' is not an IP address or CIDR range`);
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return {
    has(address) {
      if (address === undefined) return false;
      const peer = unmappedAddress(address);
      return list.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

/** An IPv4 peer on a dual-stack socket shows up as ::ffff:a.b.c.d; this gives a.b.c.d. */
export function unmappedAddress(address: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
}
