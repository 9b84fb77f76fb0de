import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ID_PATTERN } from '../../protocol/reading.js';
import { parseDeviceTenants } from '../../ingest/eventhubs/event-tenancy.js';
import { DEV_DEVICE_KEY, DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../security/dev-defaults.js';
import * as p from './parsers.js';

export const ENVIRONMENTS = ['Development', 'Staging', 'Production'] as const;
export type EnvironmentName = (typeof ENVIRONMENTS)[number];

/** What a default may depend on: the environment and the keys resolved before it. */
export interface DefaultContext {
  environment: EnvironmentName;
  get(key: string): unknown;
}

export interface KeyDefinition {
  /** Canonical spelling; matching is case-insensitive, as in .NET configuration. */
  key: string;
  parse: (raw: p.Raw) => unknown;
  /** Undefined → the key is unset unless `required` says otherwise. */
  default?: (ctx: DefaultContext) => unknown;
  required?: (ctx: DefaultContext) => boolean;
  /** Never logged, never echoed in errors. */
  secret?: boolean;
  /** Why `required` holds, appended to "is required in {Environment}". */
  requiredWhen?: string;
  /** Extra environment variable names, e.g. PORT. */
  envAliases?: string[];
  /** A rule across keys, run on the resolved value; returns the problem, or undefined when fine. */
  check?: (value: unknown, ctx: DefaultContext) => string | undefined;
  /** Resolved after the keys without it, so its default, requirement and check can read them. */
  dependent?: boolean;
}

const dev = (ctx: DefaultContext) => ctx.environment === 'Development';
const notDev = (ctx: DefaultContext) => !dev(ctx);

/** Every configuration key the hub reads. Units are in the names or noted. */
export const SCHEMA: readonly KeyDefinition[] = [
  { key: 'Http:Port', parse: p.port, default: () => 8080, envAliases: ['PORT'] },
  // Development binds loopback only: its sign-in hands out tokens to anyone who can reach it.
  { key: 'Http:Host', parse: p.str(), default: (ctx) => (dev(ctx) ? '127.0.0.1' : '0.0.0.0') },
  // The URL clients use (behind a TLS proxy: https://…); decides Secure cookies, HSTS and ws(s) negotiate URLs.
  { key: 'Http:PublicBaseUrl', parse: p.url(['http', 'https']) },
  // Comma separated IPs or CIDRs whose X-Forwarded-Proto/Host are believed; unset → forwarded headers are ignored.
  { key: 'Http:TrustedProxies', parse: p.addressList },
  // seconds: a request's headers must arrive within HeadersTimeout (slowloris), the whole request within RequestTimeout
  { key: 'Http:HeadersTimeoutSeconds', parse: p.num(0.1, 600), default: () => 10 },
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
  { key: 'ConnectionStrings:mqtt', parse: p.url(['mqtt', 'mqtts', 'tcp', 'ssl', 'ws', 'wss']), secret: true },
  { key: 'Ingestion:Mqtt:EmbeddedPort', parse: p.port, default: () => 1884 },
  { key: 'Ingestion:Mqtt:EmbeddedHost', parse: p.str(), default: () => '127.0.0.1' },
  // Outside Development the embedded broker runs only when asked for, and then with a key of its own.
  {
    key: 'Ingestion:Mqtt:Embedded',
    parse: p.bool,
    dependent: true,
    default: (ctx) => dev(ctx) && ctx.get('ConnectionStrings:mqtt') === undefined && ctx.get('ConnectionStrings:eventhubs') === undefined,
  },
  {
    key: 'Ingestion:Mqtt:DeviceKey',
    parse: p.str({ minLength: 32 }),
    secret: true,
    dependent: true,
    default: (ctx) => (dev(ctx) && ctx.get('Ingestion:Mqtt:Embedded') === true ? DEV_DEVICE_KEY : undefined),
    required: (ctx) => ctx.get('Ingestion:Mqtt:Embedded') === true,
    check: (key, ctx) => {
      if (key !== DEV_DEVICE_KEY) return undefined;
      if (notDev(ctx)) return 'the public development key is refused outside Development; set a key of your own';
      if (ctx.get('Ingestion:Mqtt:Embedded') === true && !isLoopbackHost(String(ctx.get('Ingestion:Mqtt:EmbeddedHost')))) {
        return 'the public development key is accepted only while Ingestion:Mqtt:EmbeddedHost is a loopback address; set a key of your own';
      }
      return undefined;
    },
  },
  // bytes; a larger MQTT packet (fixed header included) closes the connection before its body is read
  { key: 'Ingestion:Mqtt:MaxPacketBytes', parse: p.int(1024, 268_435_460), default: () => 65_536 },
  // open connections to the embedded broker, in total and from one remote address
  { key: 'Ingestion:Mqtt:MaxConnections', parse: p.int(1, 1_000_000), default: () => 10_000 },
  { key: 'Ingestion:Mqtt:MaxConnectionsPerIp', parse: p.int(1, 1_000_000), default: () => 100 },
  { key: 'Ingestion:Mqtt:Qos', parse: p.int(0, 1), default: () => 1 },
  // 5 carries traceparent as a user property; 4 (3.1.1) for older brokers. The embedded broker is always 4.
  { key: 'Ingestion:Mqtt:ProtocolVersion', parse: p.int(4, 5), default: () => 5 },
  // Stable per machine, so a QoS 1 session survives restarts, and distinct across instances.
  {
    key: 'Ingestion:Mqtt:ClientId',
    parse: p.str({ pattern: /^[A-Za-z0-9_.-]{1,64}$/ }),
    default: () => `telemetry-hub-${hostname().replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 40) || 'local'}`,
  },
  { key: 'ConnectionStrings:eventhubs', parse: p.str(), secret: true },
  { key: 'Ingestion:EventHubs:Name', parse: p.str() },
  { key: 'Ingestion:EventHubs:ConsumerGroup', parse: p.str(), default: () => '$Default' },
  // The tenant of an event is configuration, never a property the device sets: one tenant per hub,
  // and/or `device=tenant,…`; one of them is required with Event Hubs.
  { key: 'Ingestion:EventHubs:DeviceTenants', parse: (raw) => parseDeviceTenants(String(raw)) },
  {
    key: 'Ingestion:EventHubs:Tenant',
    parse: p.str({ pattern: ID_PATTERN }),
    dependent: true,
    required: (ctx) => ctx.get('ConnectionStrings:eventhubs') !== undefined && ctx.get('Ingestion:EventHubs:DeviceTenants') === undefined,
    requiredWhen: 'when ConnectionStrings:eventhubs is set (or set Ingestion:EventHubs:DeviceTenants)',
  },
  // seconds between partition load-balancing rounds, and until an unrenewed partition claim lapses
  { key: 'Ingestion:EventHubs:LoadBalancingIntervalSeconds', parse: p.num(0.05, 600), default: () => 10 },
  { key: 'Ingestion:EventHubs:OwnershipExpirationSeconds', parse: p.num(0.1, 3600), default: () => 60 },
  // Event Hubs checkpoints in memory replay every retained event after each restart: not in Production.
  {
    key: 'ConnectionStrings:redis',
    parse: p.url(['redis', 'rediss']),
    secret: true,
    dependent: true,
    required: (ctx) => ctx.environment === 'Production' && ctx.get('ConnectionStrings:eventhubs') !== undefined,
    requiredWhen: 'when ConnectionStrings:eventhubs is set (Event Hubs checkpoints; in memory every restart reads all retained events again)',
  },
  // devices remembered over all tenants (last value, seq); a new device beyond it is refused
  { key: 'Hub:MaxDevices', parse: p.int(1, 10_000_000), default: () => 100_000 },
  // devices remembered per tenant; a tenant's new device beyond it is refused (known ones keep their seq)
  { key: 'Hub:MaxDevicesPerTenant', parse: p.int(1, 10_000_000), default: () => 10_000 },
  // groups one connection may be in; a join/subscribe beyond it is refused (HUB_ERR_HUB_LIMIT)
  { key: 'Hub:MaxGroupsPerConnection', parse: p.int(1, 1_000_000), default: () => 1000 },
  // live connections (socket.io and Web PubSub together) per user, and per tenant
  { key: 'Hub:MaxConnectionsPerUser', parse: p.int(1, 1_000_000), default: () => 100 },
  { key: 'Hub:MaxConnectionsPerTenant', parse: p.int(1, 10_000_000), default: () => 10_000 },
  // bytes; the largest message data a management send or a client sendToGroup/event may carry
  { key: 'Hub:MaxMessageBytes', parse: p.int(1024, 64 * 1024 * 1024), default: () => 1024 * 1024 },
  { key: 'Hub:Name', parse: p.str({ pattern: /^[A-Za-z][A-Za-z0-9_]{0,127}$/ }), default: () => 'telemetry' },
  {
    key: 'Hub:AccessKey',
    parse: p.str({ minLength: 32 }),
    secret: true,
    default: (ctx) => (dev(ctx) ? randomBytes(32).toString('base64url') : undefined),
    required: notDev,
  },
  {
    key: 'Auth:Jwt:Secret',
    parse: p.str({ minLength: 32 }),
    secret: true,
    default: (ctx) => (dev(ctx) ? DEV_JWT_SECRET : undefined),
    required: (ctx) => notDev(ctx) && ctx.get('Auth:Jwt:JwksUri') === undefined,
  },
  { key: 'Auth:Jwt:Issuer', parse: p.str(), default: (ctx) => (dev(ctx) ? DEV_JWT_ISSUER : undefined), required: notDev },
  { key: 'Auth:Jwt:Audience', parse: p.str(), default: (ctx) => (dev(ctx) ? DEV_JWT_AUDIENCE : undefined), required: notDev },
  { key: 'Auth:Jwt:JwksUri', parse: p.url(['https', 'http']) },
  // seconds of clock skew tolerated on token expiry
  { key: 'Auth:Jwt:ClockSkewSeconds', parse: p.int(0, 600), default: () => 60 },
  // per device, readings per second reaching its group
  { key: 'Throttle:MaxPerSecondPerDevice', parse: p.num(0, 1000, { exclusiveMin: true }), default: () => 5 },
  // seconds; then remaining work is abandoned
  { key: 'Host:ShutdownTimeoutSeconds', parse: p.num(0, 3600), default: () => 30 },
  // seconds a health check may take before it counts as Unhealthy
  { key: 'Health:CheckTimeoutSeconds', parse: p.num(0, 300, { exclusiveMin: true }), default: () => 5 },
  { key: 'Simulator:Devices', parse: p.int(0, 100_000), default: (ctx) => (dev(ctx) ? 10 : 0) },
  { key: 'Simulator:Tenant', parse: p.str({ pattern: ID_PATTERN }), default: () => 'demo' },
  // readings per device per second
  { key: 'Simulator:Rate', parse: p.num(0, 1000, { exclusiveMin: true }), default: () => 1 },
  // Development: the dashboard's own origin when it runs from Vite's dev server (same-origin needs none).
  {
    key: 'Cors:AllowedOrigins',
    parse: p.origins,
    default: (ctx) => (dev(ctx) ? ['http://localhost:5173', 'http://127.0.0.1:5173'] : []),
  },
  { key: 'Logging:LogLevel:Default', parse: p.logLevel, default: () => 'info' },
];

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** `Logging:LogLevel:<Category>` keys beyond Default are open-ended. */
export const LOG_LEVEL_PREFIX = 'logging:loglevel:';
