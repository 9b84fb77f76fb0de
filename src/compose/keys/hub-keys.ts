import { idPattern } from '../../host/ids.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import {
  isDevelopment as dev,
  notDevelopment as notDev,
  type KeyDefinition,
} from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';

/** The hub's configuration keys: its name and access key, and its limits. Units are in the names or noted. */
/** Instance ids made up by the default (new per process): a client id derived from one does not outlive its process. */
const generatedInstanceIds = new Set<string>();

/** True when `id` is an instance id the default made up, not one the configuration set. */
export function isGeneratedInstanceId(id: unknown): boolean {
  return typeof id === 'string' && generatedInstanceIds.has(id);
}

export const HUB_KEYS: readonly KeyDefinition[] = [
  // devices remembered over all tenants (last value, seq); a new device beyond it is refused
  {
    key: 'Hub:MaxDevices',
    doc: 'devices remembered over all tenants (last value, `seq`): the global bound on memory; a new device beyond it is refused',
    parse: p.int(1, 10_000_000),
    default: () => 100_000,
  },
  // devices remembered per tenant; a tenant's new device beyond it is refused (known ones keep their seq)
  {
    key: 'Hub:MaxDevicesPerTenant',
    doc: "devices remembered per tenant (in Redis too, in a cluster); a tenant's new device beyond it is refused (its readings are dropped, reason `device_limit`), so one tenant's flood of device ids never pushes out another tenant's devices or restarts their `seq`",
    parse: p.int(1, 10_000_000),
    default: () => 10_000,
  },
  // groups one connection may be in; a join/subscribe beyond it is refused (HUB_ERR_HUB_LIMIT)
  {
    key: 'Hub:MaxGroupsPerConnection',
    doc: 'groups one connection may be in; a join/subscribe beyond it is refused (`HUB_ERR_HUB_LIMIT`)',
    parse: p.int(1, 1_000_000),
    default: () => 1000,
  },
  // live connections (socket.io and Web PubSub together) per user, and per tenant
  {
    key: 'Hub:MaxConnectionsPerUser',
    doc: 'live connections (socket.io and Web PubSub together) per user of a tenant on one instance; one beyond it is refused (`HUB_ERR_HUB_LIMIT`)',
    parse: p.int(1, 1_000_000),
    default: () => 100,
  },
  {
    key: 'Hub:MaxConnectionsPerTenant',
    doc: 'live connections (socket.io and Web PubSub together) per tenant on one instance; one beyond it is refused (`HUB_ERR_HUB_LIMIT`)',
    parse: p.int(1, 10_000_000),
    default: () => 10_000,
  },
  // readings one subscribe with `since`, or a recovered reliable Web PubSub session per device, replays at most
  // (the newest kept; the ack or summary says truncated when more were missed)
  {
    key: 'Hub:CatchUpMax',
    doc: 'readings one `subscribe` with `since` replays at most, the newest kept (see "Catch-up"); also per device for a recovered reliable Web PubSub session',
    parse: p.int(1, 100_000),
    default: () => 1000,
  },
  // bytes; the largest message data a management send or a client sendToGroup/event may carry
  {
    key: 'Hub:MaxMessageBytes',
    doc: 'largest management API send body (413 `HUB_ERR_HUB_MESSAGE_TOO_LARGE`) and largest Web PubSub client frame (the connection is closed with 1009)',
    parse: p.int(1024, 64 * 1024 * 1024),
    default: () => 1024 * 1024,
  },
  {
    key: 'Hub:Name',
    doc: 'hub name in URLs',
    parse: p.str({ pattern: /^[A-Za-z][A-Za-z0-9_]{0,127}$/ }),
    default: () => 'telemetry',
  },
  // Names this process in the cluster (logged at start; the default MQTT client id derives from it).
  // Unique per process by default, so instances on one machine never collide; set it stable per
  // instance (e.g. a StatefulSet pod name) for a persistent MQTT session across that instance's restarts.
  {
    key: 'Hub:InstanceId',
    doc: 'names this instance in the cluster (logged at start on `telemetry hub ready` and with the ingest lease changes); letters, digits, `_`, `.`, `-`, up to 50; without Redis, set it stable per instance (e.g. a StatefulSet pod name) to keep the MQTT session across restarts',
    defaultDoc: '`{hostname}-{8 random hex}`, new per process',
    parse: p.str({ pattern: idPattern(50) }),
    default: () => {
      const id = `${
        hostname()
          .replace(/[^A-Za-z0-9_.-]/g, '')
          .replace(/^[^A-Za-z0-9]+/, '')
          .slice(0, 40) || 'hub'
      }-${randomBytes(4).toString('hex')}`;
      generatedInstanceIds.add(id);
      return id;
    },
  },
  {
    key: 'Hub:AccessKey',
    doc: "the same names as the hub's keys, so one set of variables configures both; `Hub:AccessKey` is never generated here (unset: Web PubSub client tokens are refused)",
    defaultDoc: 'as for the hub',
    parse: p.str({ minLength: 32 }),
    secret: true,
    default: (ctx) => (dev(ctx) ? randomBytes(32).toString('base64url') : undefined),
    required: notDev,
  },
];
