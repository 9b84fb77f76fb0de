import { isIPv4, isIPv6 } from 'node:net';

/**
 * `host[:port]` or `[ipv6][:port]`: the only shape a Host (or X-Forwarded-Host) may have before it
 * becomes part of a URL the hub builds. Anything else — a path, a query, userinfo, a backslash —
 * could turn a negotiated client URL into another endpoint's audience.
 */
const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** True for a well-formed `host[:port]`; false for anything else, the empty string included. */
export function isValidHost(value: string): boolean {
  if (value.length > 255 || !HOST.test(value)) return false;
  const colon = value.lastIndexOf(':');
  const bracket = value.lastIndexOf(']');
  if (colon > bracket && Number(value.slice(colon + 1)) > 65535) return false;
  // Brackets hold an IPv6 address and nothing else (`[0]` has the right characters and is not one).
  if (bracket >= 0) return isIPv6(value.slice(1, bracket));
  // A name whose last label is a number is an IPv4 address to a URL parser (WHATWG), which refuses
  // or rewrites the odd forms (`1.2.3`, `0x7f.1`, `0.00001`): only a plain dotted quad is accepted.
  const name = colon > 0 ? value.slice(0, colon) : value;
  const last = name.endsWith('.') ? name.slice(0, -1).split('.').pop()! : name.split('.').pop()!;
  return !/^(?:\d+|0[xX][0-9A-Fa-f]*)$/.test(last) || isIPv4(name);
}

/**
 * The request's Host header when it is well-formed; `undefined` when absent (HTTP/1.0); `null`
 * when present but malformed, or sent twice (the request must then be refused, never used).
 */
export function requestHost(headers: { host?: string | string[] | undefined }): string | undefined | null {
  const host = headers.host;
  if (host === undefined) return undefined;
  if (typeof host !== 'string') return null;
  return isValidHost(host) ? host : null;
}

/** The name or address of a well-formed `host[:port]`, without the port (IPv6 keeps its brackets). */
export function hostNameOf(host: string): string {
  const colon = host.lastIndexOf(':');
  return colon > host.lastIndexOf(']') ? host.slice(0, colon) : host;
}
