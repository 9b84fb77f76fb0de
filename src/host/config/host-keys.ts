import { isDevelopment as dev, type KeyDefinition } from './key-definition.js';
import * as p from './parsers.js';
import { isLoopbackHost } from '../loopback-host.js';

/** The host's own configuration keys (HTTP server, lifecycle, health, logging). Units are in the names. */
export const HOST_KEYS: readonly KeyDefinition[] = [
  {
    key: 'Http:Port',
    doc: 'listen port; 0 = ephemeral; the bound URL is logged as `listening` with field `url`',
    parse: p.port,
    default: () => 8080,
    envAliases: ['PORT'],
  },
  // Development binds loopback only: its sign-in hands out tokens to anyone who can reach it.
  {
    key: 'Http:Host',
    doc: 'listen address; Development stays on loopback so its sign-in never faces the network: a non-loopback address (anything but `localhost`, `127.x.x.x`, `::1`) in Development stops start-up (exit 78 naming `Http:Host`)',
    defaultDoc: '`127.0.0.1` in Development, else `0.0.0.0`',
    parse: p.str(),
    default: (ctx) => (dev(ctx) ? '127.0.0.1' : '0.0.0.0'),
    dependent: true,
    check: (host, ctx) =>
      dev(ctx) && ctx.get('Http:AllowRemoteDevelopment') !== true && !isLoopbackHost(String(host))
        ? 'Development listens on loopback only (its sign-in hands out tokens to anyone who reaches it); use 127.0.0.1, localhost or ::1, or set Http:AllowRemoteDevelopment=true'
        : undefined,
  },
  // Development on a non-loopback Http:Host, knowingly (a VM or container reached from its host).
  {
    key: 'Http:AllowRemoteDevelopment',
    doc: '`true` lets Development listen on a non-loopback `Http:Host` (e.g. inside a VM or container reached from its host), knowing that its sign-in and `/auth/dev-token` hand out tokens to whoever reaches it',
    parse: p.bool,
    default: () => false,
  },
  // The URL clients use (behind a TLS proxy: https://…); decides Secure cookies, HSTS and ws(s) negotiate URLs.
  {
    key: 'Http:PublicBaseUrl',
    doc: "the URL clients use, e.g. `https://telemetry.example.com`: negotiate hands out URLs on it and client tokens name it, whatever a request's headers say; its scheme makes cookies `Secure`, adds HSTS and makes negotiate answer `wss://`. Set it in every deployment: without it the URLs follow each request's (validated) `Host`, and a hub outside Development says so at start (warning naming the key)",
    parse: p.url(['http', 'https']),
  },
  // Comma separated IPs or CIDRs whose X-Forwarded-Proto/Host are believed; unset → forwarded headers are ignored.
  {
    key: 'Http:TrustedProxies',
    doc: "comma separated IPs or CIDR ranges (IPv4 or IPv6, e.g. `10.0.0.0/8, ::1`) whose `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` are believed (proto and host: the last value of a list, the one the nearest proxy added; the client address: the rightmost `X-Forwarded-For` entry that is not itself a trusted proxy); from any other peer they are ignored. Name only your proxies' own addresses",
    parse: p.addressList,
  },
  // seconds: a request's headers must arrive within HeadersTimeout (slowloris), the whole request within RequestTimeout
  {
    key: 'Http:HeadersTimeoutSeconds',
    doc: 'the request line and headers must arrive within this, and a new connection must start sending within it (slowloris); then 408 and close',
    parse: p.num(0.1, 600),
    default: () => 10,
    dependent: true,
    check: (headers, ctx) => {
      const request = ctx.get('Http:RequestTimeoutSeconds') as number | undefined;
      return request !== undefined && (headers as number) > request
        ? `must not exceed Http:RequestTimeoutSeconds (${request})`
        : undefined;
    },
  },
  {
    key: 'Http:RequestTimeoutSeconds',
    doc: 'the whole request, body included; then 408 and close',
    parse: p.num(0.1, 3600),
    default: () => 60,
  },
  // seconds an idle kept-alive connection stays open
  {
    key: 'Http:KeepAliveTimeoutSeconds',
    doc: 'an idle kept-alive connection is closed after this',
    parse: p.num(0.1, 600),
    default: () => 5,
  },
  // open TCP connections (WebSockets included); beyond it new ones are closed at once
  {
    key: 'Http:MaxConnections',
    doc: 'open TCP connections, WebSockets included; beyond it a new connection is closed at once',
    parse: p.int(1, 10_000_000),
    default: () => 10_000,
  },
  // seconds a client answered 413/431 may go on sending (read and dropped) before its connection is cut
  {
    key: 'Http:CloseLingerSeconds',
    doc: 'after a 413 or 431 answer, what the client still sends is read and dropped this long (so it reads the answer, not a reset), then the connection is cut',
    parse: p.num(0, 60),
    default: () => 5,
  },
  // bytes of request line + headers (431 beyond)
  {
    key: 'Http:MaxHeaderBytes',
    doc: 'request line and headers (431 beyond)',
    parse: p.int(1024, 1024 * 1024),
    default: () => 16 * 1024,
  },
  // bytes; the largest request body any endpoint accepts (413 beyond it)
  {
    key: 'Http:BodyLimitBytes',
    doc: 'largest request body (413 beyond)',
    parse: p.int(1024, 64 * 1024 * 1024),
    default: () => 1024 * 1024,
  },
  // WebSocket handshakes (Web PubSub and socket.io) per client address: this many per second, bursts up to the burst
  {
    key: 'Http:WebSocketUpgradesPerIpPerSecond',
    doc: 'WebSocket handshakes (Web PubSub upgrades and new socket.io sessions together) per client address and second: the refill rate of a token bucket of `Http:WebSocketUpgradeBurstPerIp`; beyond it 429 `HUB_ERR_RATE_LIMITED` with `Retry-After`',
    parse: p.int(1, 100_000),
    default: () => 20,
  },
  {
    key: 'Http:WebSocketUpgradeBurstPerIp',
    doc: 'WebSocket handshakes one client address may start at once (the bucket of `Http:WebSocketUpgradesPerIpPerSecond`)',
    parse: p.int(1, 100_000),
    default: () => 40,
  },
  // WebSocket/socket.io handshakes begun but not yet authenticated, over all clients (503 beyond)
  {
    key: 'Http:MaxPendingUpgrades',
    doc: 'handshakes begun but not yet authenticated, over all clients (a socket.io session counts until it joins `/telemetry`); beyond it 503 `HUB_ERR_HTTP_SERVER_BUSY` with `Retry-After`',
    parse: p.int(1, 1_000_000),
    default: () => 1000,
  },
  // seconds; then remaining work is abandoned
  {
    key: 'Host:ShutdownTimeoutSeconds',
    doc: 'then remaining work is abandoned',
    parse: p.num(0, 3600),
    default: () => 30,
  },
  // seconds a health check may take before it counts as Unhealthy
  {
    key: 'Health:CheckTimeoutSeconds',
    doc: 'a health check slower than this is Unhealthy',
    parse: p.num(0, 300, { exclusiveMin: true }),
    default: () => 5,
  },
  {
    key: 'Logging:LogLevel:Default',
    doc: 'the log level; `Logging:LogLevel:{Category}` sets one category (`Ingestion`, `Ingestion.Mqtt`, `Hub.SocketIo`, …), the longest matching prefix winning',
    parse: p.logLevel,
    default: () => 'info',
  },
];

/** `Logging:LogLevel:<Category>` keys beyond Default are open-ended. */
export const LOG_LEVEL_PREFIX = 'logging:loglevel:';
