import {
  isDevelopment as dev,
  notDevelopment as notDev,
  type KeyDefinition,
} from '../../host/config/key-definition.js';
import * as p from '../../host/config/parsers.js';
import { isLoopbackHost } from '../../host/loopback-host.js';
import { ID_PATTERN } from '../../host/ids.js';
import { DEV_DEVICE_KEY } from '../../host/security/dev-defaults.js';
import { parseDeviceTenants } from '../../wire/eventhubs/event-tenancy.js';

/**
 * Ingestion's configuration keys: the MQTT source (an external broker or the embedded one), Event Hubs,
 * and the per-device throttle. Units are in the names or noted.
 */
export const INGESTION_KEYS: readonly KeyDefinition[] = [
  {
    key: 'ConnectionStrings:mqtt',
    doc: 'an external broker the hub subscribes to, e.g. `mqtt://127.0.0.1:1883`',
    parse: p.url(['mqtt', 'mqtts', 'tcp', 'ssl', 'ws', 'wss']),
    secret: true,
  },
  {
    key: 'Ingestion:Mqtt:EmbeddedPort',
    doc: 'embedded broker port; 0 = ephemeral',
    parse: p.port,
    default: () => 1884,
  },
  {
    key: 'Ingestion:Mqtt:EmbeddedHost',
    doc: 'embedded broker listen address (`0.0.0.0` to face the network)',
    parse: p.str(),
    default: () => '127.0.0.1',
  },
  // Outside Development the embedded broker runs only when asked for, and then with a key of its own.
  {
    key: 'Ingestion:Mqtt:Embedded',
    doc: 'run the embedded broker (see Security (docs/security.md)); outside Development it runs only when set to `true`',
    defaultDoc:
      '`true` in Development when neither `ConnectionStrings:mqtt` nor `ConnectionStrings:eventhubs` is set, else `false`',
    parse: p.bool,
    dependent: true,
    default: (ctx) =>
      dev(ctx) &&
      ctx.get('ConnectionStrings:mqtt') === undefined &&
      ctx.get('ConnectionStrings:eventhubs') === undefined,
  },
  {
    key: 'Ingestion:Mqtt:DeviceKey',
    doc: 'signs and verifies device tokens; the development key is refused outside Development and on a non-loopback `EmbeddedHost`',
    defaultDoc:
      'the public development key in Development; required whenever the embedded broker runs elsewhere (≥ 32 chars, secret)',
    parse: p.str({ minLength: 32 }),
    secret: true,
    dependent: true,
    default: (ctx) => (dev(ctx) && ctx.get('Ingestion:Mqtt:Embedded') === true ? DEV_DEVICE_KEY : undefined),
    required: (ctx) => ctx.get('Ingestion:Mqtt:Embedded') === true,
    check: (key, ctx) => {
      if (key !== DEV_DEVICE_KEY) return undefined;
      if (notDev(ctx)) return 'the public development key is refused outside Development; set a key of your own';
      if (
        ctx.get('Ingestion:Mqtt:Embedded') === true &&
        !isLoopbackHost(String(ctx.get('Ingestion:Mqtt:EmbeddedHost')))
      ) {
        return 'the public development key is accepted only while Ingestion:Mqtt:EmbeddedHost is a loopback address; set a key of your own';
      }
      return undefined;
    },
  },
  // bytes; a larger MQTT packet (fixed header included) closes the connection before its body is read
  {
    key: 'Ingestion:Mqtt:MaxPacketBytes',
    doc: 'an MQTT packet (fixed header included) larger than this closes the connection before its body is read',
    parse: p.int(1024, 268_435_460),
    default: () => 65_536,
  },
  // open connections to the embedded broker, in total and from one remote address
  {
    key: 'Ingestion:Mqtt:MaxConnections',
    doc: 'open connections to the embedded broker; more are closed at accept',
    parse: p.int(1, 1_000_000),
    default: () => 10_000,
  },
  {
    key: 'Ingestion:Mqtt:MaxConnectionsPerIp',
    doc: 'open connections to the embedded broker from one address (the built-in simulator opens one per device)',
    parse: p.int(1, 1_000_000),
    default: () => 100,
  },
  {
    key: 'Ingestion:Mqtt:Qos',
    doc: 'subscription QoS on an external broker; 1 uses a persistent session',
    parse: p.int(0, 1),
    default: () => 1,
  },
  // 5 carries traceparent as a user property; 4 (3.1.1) for older brokers. The embedded broker is always 4.
  {
    key: 'Ingestion:Mqtt:ProtocolVersion',
    doc: '5 or 4 (3.1.1) for an external broker; the embedded broker is 3.1.1',
    parse: p.int(4, 5),
    default: () => 5,
  },
  {
    key: 'ConnectionStrings:eventhubs',
    doc: 'an Event Hubs namespace or IoT Hub built-in endpoint connection string: the hub reads readings from it',
    parse: p.str(),
    secret: true,
  },
  {
    key: 'Ingestion:EventHubs:Name',
    doc: 'the event hub',
    defaultDoc: "unset (the connection string's `EntityPath`)",
    parse: p.str(),
  },
  {
    key: 'Ingestion:EventHubs:ConsumerGroup',
    doc: 'the consumer group the hub instances share',
    parse: p.str(),
    default: () => '$Default',
  },
  // The tenant of an event is configuration, never a property the device sets: one tenant per hub,
  // and/or `device=tenant,…`; one of them is required with Event Hubs.
  {
    key: 'Ingestion:EventHubs:DeviceTenants',
    doc: "`device=tenant` pairs, comma separated (e.g. `boiler-1=acme, boiler-2=globex`): each device's tenant",
    parse: (raw) => parseDeviceTenants(String(raw)),
  },
  {
    key: 'Ingestion:EventHubs:Tenant',
    doc: 'the tenant of every Event Hubs device the map below does not name',
    defaultDoc: 'unset; required with `ConnectionStrings:eventhubs` unless `DeviceTenants` is set',
    parse: p.str({ pattern: ID_PATTERN }),
    dependent: true,
    required: (ctx) =>
      ctx.get('ConnectionStrings:eventhubs') !== undefined &&
      ctx.get('Ingestion:EventHubs:DeviceTenants') === undefined,
    requiredWhen: 'when ConnectionStrings:eventhubs is set (or set Ingestion:EventHubs:DeviceTenants)',
  },
  // Without IoT Hub's `iothub-connection-device-id`, take the device from the sender's `deviceId`
  // property (a plain event hub whose senders are all trusted); false refuses such events.
  {
    key: 'Ingestion:EventHubs:TrustSenderDeviceId',
    doc: "an event without IoT Hub's `iothub-connection-device-id` takes its device from the sender's `deviceId` application property only when `true` (a plain event hub whose senders are all trusted); otherwise it is refused (drop reason `untrusted_device_id`)",
    parse: p.bool,
    default: () => false,
  },
  // seconds between partition load-balancing rounds, and until an unrenewed partition claim lapses
  {
    key: 'Ingestion:EventHubs:LoadBalancingIntervalSeconds',
    doc: 'how often instances rebalance partitions among themselves',
    parse: p.num(0.05, 600),
    default: () => 10,
  },
  {
    key: 'Ingestion:EventHubs:OwnershipExpirationSeconds',
    doc: 'when an unrenewed partition claim lapses (another instance takes the partition)',
    parse: p.num(0.1, 3600),
    default: () => 60,
  },
  // seconds a reading delivered again (a QoS 1 resend after a reconnect or a crashed ingester, a
  // device's republish) is recognised and keeps its first seq; 0 turns the check off
  {
    key: 'Ingestion:RedeliveryWindowSeconds',
    doc: 'how long a QoS 1 reading delivered again is recognised (by its `msgId`, else by device, `ts` and a digest of the payload) and dropped as `redelivered` instead of getting a second `seq`: in memory alone, in Redis for a cluster (see Ingestion (docs/ingestion.md)); 0 turns it off',
    parse: p.num(0, 3600),
    default: () => 60,
  },
  // per device, readings per second reaching its group
  {
    key: 'Throttle:MaxPerSecondPerDevice',
    doc: 'readings per device per second reaching its group',
    parse: p.num(0, 1000, { exclusiveMin: true }),
    default: () => 5,
  },
];
