import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { ID_PATTERN } from '../../protocol/reading.js';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../security/dev-defaults.js';
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
  { key: 'ConnectionStrings:mqtt', parse: p.url(['mqtt', 'mqtts', 'tcp', 'ssl', 'ws', 'wss']) },
  { key: 'Ingestion:Mqtt:EmbeddedPort', parse: p.port, default: () => 1884 },
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
  // seconds between partition load-balancing rounds, and until an unrenewed partition claim lapses
  { key: 'Ingestion:EventHubs:LoadBalancingIntervalSeconds', parse: p.num(0.05, 600), default: () => 10 },
  { key: 'Ingestion:EventHubs:OwnershipExpirationSeconds', parse: p.num(0.1, 3600), default: () => 60 },
  { key: 'ConnectionStrings:redis', parse: p.url(['redis', 'rediss']), secret: true },
  // devices remembered over all tenants (last value, seq); past it the least recently seen is forgotten
  { key: 'Hub:MaxDevices', parse: p.int(1, 10_000_000), default: () => 100_000 },
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
    dependsOnOthers: true,
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
  // new WebSocket and socket.io connections per client address in any minute (429 beyond)
  { key: 'RateLimit:UpgradesPerMinutePerIp', parse: p.int(1, 10_000_000), default: () => 600 },
];
// ---- end of AREA KEYS ----------------------------------------------------------------------------
