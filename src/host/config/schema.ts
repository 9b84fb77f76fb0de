import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ID_PATTERN } from '../../protocol/reading.js';
import { parseDeviceTenants } from '../../ingest/eventhubs/event-tenancy.js';
import { DEV_DEVICE_KEY, DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../security/dev-defaults.js';
import type { DefaultContext, KeyDefinition } from './key-definition.js';
import * as p from './parsers.js';

// The host's own keys are in host-keys.ts; these re-exports keep older imports working.
export { ENVIRONMENTS, type DefaultContext, type EnvironmentName, type KeyDefinition } from './key-definition.js';
export { LOG_LEVEL_PREFIX } from './host-keys.js';

const dev = (ctx: DefaultContext) => ctx.environment === 'Development';
const notDev = (ctx: DefaultContext) => !dev(ctx);

// ---- AREA KEYS: ingestion, hub, security, transports, simulator ------------------------------------
// Still in one list; each area's keys move next to its code as `<AREA>_KEYS` (e.g. src/ingest/
// ingestion-keys.ts) and src/app/app-config-keys.ts composes them with the host's. Units are in the
// names or noted.
export const AREA_KEYS: readonly KeyDefinition[] = [
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
    dependent: true,
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
];
// ---- end of AREA KEYS ----------------------------------------------------------------------------

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
