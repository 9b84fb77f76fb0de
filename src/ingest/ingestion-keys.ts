import { isDevelopment as dev, notDevelopment as notDev, type KeyDefinition } from '../host/config/key-definition.js';
import * as p from '../host/config/parsers.js';
import { ID_PATTERN } from '../protocol/reading.js';
import { DEV_DEVICE_KEY } from '../security/dev-defaults.js';
import { parseDeviceTenants } from './eventhubs/event-tenancy.js';

/**
 * Ingestion's configuration keys: the MQTT source (an external broker or the embedded one), Event Hubs,
 * and the per-device throttle. Units are in the names or noted.
 */
export const INGESTION_KEYS: readonly KeyDefinition[] = [
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
  // per device, readings per second reaching its group
  { key: 'Throttle:MaxPerSecondPerDevice', parse: p.num(0, 1000, { exclusiveMin: true }), default: () => 5 },
];

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
