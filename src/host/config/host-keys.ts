import { isDevelopment as dev, type KeyDefinition } from './key-definition.js';
import * as p from './parsers.js';

/** The host's own configuration keys (HTTP server, lifecycle, health, logging). Units are in the names. */
export const HOST_KEYS: readonly KeyDefinition[] = [
  { key: 'Http:Port', parse: p.port, default: () => 8080, envAliases: ['PORT'] },
  // Development binds loopback only: its sign-in hands out tokens to anyone who can reach it.
  { key: 'Http:Host', parse: p.str(), default: (ctx) => (dev(ctx) ? '127.0.0.1' : '0.0.0.0') },
  // The URL clients use (behind a TLS proxy: https://…); decides Secure cookies, HSTS and ws(s) negotiate URLs.
  { key: 'Http:PublicBaseUrl', parse: p.url(['http', 'https']) },
  // Comma separated IPs or CIDRs whose X-Forwarded-Proto/Host are believed; unset → forwarded headers are ignored.
  { key: 'Http:TrustedProxies', parse: p.addressList },
  // seconds: a request's headers must arrive within HeadersTimeout (slowloris), the whole request within RequestTimeout
  {
    key: 'Http:HeadersTimeoutSeconds',
    parse: p.num(0.1, 600),
    default: () => 10,
    dependent: true,
    check: (headers, ctx) => {
      const request = ctx.get('Http:RequestTimeoutSeconds') as number | undefined;
      return request !== undefined && (headers as number) > request ? `must not exceed Http:RequestTimeoutSeconds (${request})` : undefined;
    },
  },
  { key: 'Http:RequestTimeoutSeconds', parse: p.num(0.1, 3600), default: () => 60 },
  // seconds an idle kept-alive connection stays open
  { key: 'Http:KeepAliveTimeoutSeconds', parse: p.num(0.1, 600), default: () => 5 },
  // open TCP connections (WebSockets included); beyond it new ones are closed at once
  { key: 'Http:MaxConnections', parse: p.int(1, 10_000_000), default: () => 10_000 },
  // seconds a client answered 413/431 may go on sending (read and dropped) before its connection is cut
  { key: 'Http:CloseLingerSeconds', parse: p.num(0, 60), default: () => 5 },
  // bytes of request line + headers (431 beyond)
  { key: 'Http:MaxHeaderBytes', parse: p.int(1024, 1024 * 1024), default: () => 16 * 1024 },
  // bytes; the largest request body any endpoint accepts (413 beyond it)
  { key: 'Http:BodyLimitBytes', parse: p.int(1024, 64 * 1024 * 1024), default: () => 1024 * 1024 },
  // WebSocket handshakes (Web PubSub and socket.io) per client address: this many per second, bursts up to the burst
  { key: 'Http:WebSocketUpgradesPerIpPerSecond', parse: p.int(1, 100_000), default: () => 20 },
  { key: 'Http:WebSocketUpgradeBurstPerIp', parse: p.int(1, 100_000), default: () => 40 },
  // WebSocket/socket.io handshakes begun but not yet authenticated, over all clients (503 beyond)
  { key: 'Http:MaxPendingUpgrades', parse: p.int(1, 1_000_000), default: () => 1000 },
  // seconds; then remaining work is abandoned
  { key: 'Host:ShutdownTimeoutSeconds', parse: p.num(0, 3600), default: () => 30 },
  // seconds a health check may take before it counts as Unhealthy
  { key: 'Health:CheckTimeoutSeconds', parse: p.num(0, 300, { exclusiveMin: true }), default: () => 5 },
  { key: 'Logging:LogLevel:Default', parse: p.logLevel, default: () => 'info' },
];

/** `Logging:LogLevel:<Category>` keys beyond Default are open-ended. */
export const LOG_LEVEL_PREFIX = 'logging:loglevel:';
