/**
 * Whether a host name or address (as in a listen address, a URL's hostname or a `Host` header
 * without its port) stays on this machine: `localhost`, `127.0.0.0/8`, or `::1` with or without
 * brackets. The one test of "loopback" for configuration checks and local-only pages.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}
