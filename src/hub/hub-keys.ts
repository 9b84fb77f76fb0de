import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isDevelopment as dev, notDevelopment as notDev, type KeyDefinition } from '../host/config/key-definition.js';
import * as p from '../host/config/parsers.js';

/** The hub's configuration keys: its name and access key, and its limits. Units are in the names or noted. */
export const HUB_KEYS: readonly KeyDefinition[] = [
  // devices remembered over all tenants (last value, seq); a new device beyond it is refused
  { key: 'Hub:MaxDevices', parse: p.int(1, 10_000_000), default: () => 100_000 },
  // devices remembered per tenant; a tenant's new device beyond it is refused (known ones keep their seq)
  { key: 'Hub:MaxDevicesPerTenant', parse: p.int(1, 10_000_000), default: () => 10_000 },
  // groups one connection may be in; a join/subscribe beyond it is refused (HUB_ERR_HUB_LIMIT)
  { key: 'Hub:MaxGroupsPerConnection', parse: p.int(1, 1_000_000), default: () => 1000 },
  // live connections (socket.io and Web PubSub together) per user, and per tenant
  { key: 'Hub:MaxConnectionsPerUser', parse: p.int(1, 1_000_000), default: () => 100 },
  { key: 'Hub:MaxConnectionsPerTenant', parse: p.int(1, 10_000_000), default: () => 10_000 },
  // readings one subscribe with `since` replays at most (the newest kept; the ack says truncated when more were missed)
  { key: 'Hub:CatchUpMax', parse: p.int(1, 100_000), default: () => 1000 },
  // bytes; the largest message data a management send or a client sendToGroup/event may carry
  { key: 'Hub:MaxMessageBytes', parse: p.int(1024, 64 * 1024 * 1024), default: () => 1024 * 1024 },
  { key: 'Hub:Name', parse: p.str({ pattern: /^[A-Za-z][A-Za-z0-9_]{0,127}$/ }), default: () => 'telemetry' },
  // Names this process in the cluster (logged at start; the default MQTT client id derives from it).
  // Unique per process by default, so instances on one machine never collide; set it stable per
  // instance (e.g. a StatefulSet pod name) for a persistent MQTT session across that instance's restarts.
  {
    key: 'Hub:InstanceId',
    parse: p.str({ pattern: /^[A-Za-z0-9][A-Za-z0-9_.-]{0,49}$/ }),
    default: () => `${hostname().replace(/[^A-Za-z0-9_.-]/g, '').replace(/^[^A-Za-z0-9]+/, '').slice(0, 40) || 'hub'}-${randomBytes(4).toString('hex')}`,
  },
  {
    key: 'Hub:AccessKey',
    parse: p.str({ minLength: 32 }),
    secret: true,
    default: (ctx) => (dev(ctx) ? randomBytes(32).toString('base64url') : undefined),
    required: notDev,
  },
];
