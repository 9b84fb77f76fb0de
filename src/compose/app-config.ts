import { toHostConfig, type HostConfig } from '../host/config/host-config.js';
import type { ResolvedConfig } from '../host/config/load-config.js';
import type { EventTenancy } from '../wire/eventhubs/event-tenancy.js';
import { toDatabaseConfig, type DatabaseConfig } from './keys/database-keys.js';
import { toHistoryConfig, type HistoryConfig } from './keys/history-keys.js';
import { toOrdersConfig, type OrdersConfig } from './keys/orders-keys.js';
import { toTelemetryConfig } from './keys/telemetry-keys.js';
import type { TelemetryConfig } from '../adapters/otel/telemetry-config.js';

/**
 * The resolved configuration of the whole app (APP_CONFIG_KEYS), frozen. Passed down; nothing below
 * main reads the environment. The host reads only its HostConfig part.
 */
export interface AppConfig extends HostConfig {
  readonly mqtt: {
    /** An external broker the hub subscribes to. */
    readonly url: string | undefined;
    readonly embeddedPort: number;
    /** Run the embedded broker (devices authenticate with device tokens). */
    readonly embedded: boolean;
    readonly embeddedHost: string;
    /** Signs and verifies device tokens; set whenever `embedded` is. */
    readonly deviceKey: string | undefined;
    readonly maxPacketBytes: number;
    readonly maxConnections: number;
    readonly maxConnectionsPerIp: number;
    readonly qos: 0 | 1;
    readonly protocolVersion: 4 | 5;
    readonly clientId: string;
    /** 0: a clean session (nobody resumes it). */
    readonly sessionExpirySeconds: number;
  };
  readonly eventHubs: {
    readonly connectionString: string | undefined;
    readonly name: string | undefined;
    readonly consumerGroup: string;
    /** Every event's tenant, by device; the device's own `tenant_id` property is ignored. */
    readonly tenancy: EventTenancy;
    readonly loadBalancingIntervalMs: number;
    readonly ownershipExpirationMs: number;
  };
  readonly redisUrl: string | undefined;
  /** `redisUrl` names a node of a Redis Cluster (`Redis:Cluster`). */
  readonly redisCluster: boolean;
  /** With `redisUrl`: how the instances share ingestion. */
  readonly cluster: {
    readonly ingestLeaseMs: number;
    readonly seqBlockSize: number;
    readonly ingestPartitions: number;
  };
  readonly hub: {
    readonly name: string;
    /** Names this process in the cluster; unique per process unless set. */
    readonly instanceId: string;
    readonly accessKey: string;
    readonly maxDevices: number;
    readonly maxDevicesPerTenant: number;
    readonly maxGroupsPerConnection: number;
    readonly maxConnectionsPerUser: number;
    readonly maxConnectionsPerTenant: number;
    readonly maxMessageBytes: number;
    /** Readings one `since` subscribe replays at most. */
    readonly catchUpMax: number;
  };
  readonly jwt: {
    readonly secret: string | undefined;
    readonly issuer: string;
    readonly audience: string;
    readonly jwksUri: string | undefined;
    readonly clockSkewSeconds: number;
  };
  readonly throttle: { readonly maxPerSecondPerDevice: number };
  /** How long a reading delivered again is recognised (0: never). */
  readonly redelivery: { readonly windowMs: number };
  readonly simulator: { readonly devices: number; readonly tenant: string; readonly rate: number };
  readonly cors: { readonly allowedOrigins: readonly string[] };
  readonly cache: {
    readonly output: { readonly maxEntries: number; readonly maxEntryBytes: number };
    readonly data: { readonly maxEntries: number };
  };
  readonly firmware: {
    readonly storagePath: string;
    readonly tempPath: string;
    readonly maxUploadBytes: number;
    readonly maxBytesPerTenant: number;
    readonly maxFilesPerTenant: number;
  };
  readonly database: DatabaseConfig;
  readonly history: HistoryConfig;
  readonly orders: OrdersConfig;
  /** `Telemetry:*`: OpenTelemetry export, subscribed sources, sampling. */
  readonly telemetry: TelemetryConfig;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

export function toAppConfig(resolved: ResolvedConfig): AppConfig {
  const v = <T>(key: string) => resolved.values.get(key) as T;
  const config: AppConfig = {
    ...toHostConfig(resolved),
    mqtt: {
      url: v('ConnectionStrings:mqtt'),
      embeddedPort: v('Ingestion:Mqtt:EmbeddedPort'),
      embedded: v('Ingestion:Mqtt:Embedded'),
      embeddedHost: v('Ingestion:Mqtt:EmbeddedHost'),
      deviceKey: v('Ingestion:Mqtt:DeviceKey'),
      maxPacketBytes: v('Ingestion:Mqtt:MaxPacketBytes'),
      maxConnections: v('Ingestion:Mqtt:MaxConnections'),
      maxConnectionsPerIp: v('Ingestion:Mqtt:MaxConnectionsPerIp'),
      qos: v('Ingestion:Mqtt:Qos'),
      protocolVersion: v('Ingestion:Mqtt:ProtocolVersion'),
      clientId: v('Ingestion:Mqtt:ClientId'),
      sessionExpirySeconds: v('Ingestion:Mqtt:SessionExpirySeconds'),
    },
    eventHubs: {
      connectionString: v('ConnectionStrings:eventhubs'),
      name: v('Ingestion:EventHubs:Name'),
      consumerGroup: v('Ingestion:EventHubs:ConsumerGroup'),
      tenancy: {
        tenant: v('Ingestion:EventHubs:Tenant'),
        deviceTenants: v('Ingestion:EventHubs:DeviceTenants') ?? new Map(),
        trustSenderDeviceId: v('Ingestion:EventHubs:TrustSenderDeviceId'),
      },
      loadBalancingIntervalMs: v<number>('Ingestion:EventHubs:LoadBalancingIntervalSeconds') * 1000,
      ownershipExpirationMs: v<number>('Ingestion:EventHubs:OwnershipExpirationSeconds') * 1000,
    },
    redisUrl: v('ConnectionStrings:redis'),
    redisCluster: v('Redis:Cluster'),
    cluster: {
      ingestLeaseMs: v<number>('Cluster:IngestLeaseSeconds') * 1000,
      seqBlockSize: v<number>('Cluster:SeqBlockSize'),
      ingestPartitions: v<number>('Cluster:IngestPartitions'),
    },
    hub: {
      name: v('Hub:Name'),
      instanceId: v('Hub:InstanceId'),
      accessKey: v('Hub:AccessKey'),
      maxDevices: v('Hub:MaxDevices'),
      maxDevicesPerTenant: v('Hub:MaxDevicesPerTenant'),
      maxGroupsPerConnection: v('Hub:MaxGroupsPerConnection'),
      maxConnectionsPerUser: v('Hub:MaxConnectionsPerUser'),
      maxConnectionsPerTenant: v('Hub:MaxConnectionsPerTenant'),
      maxMessageBytes: v('Hub:MaxMessageBytes'),
      catchUpMax: v('Hub:CatchUpMax'),
    },
    jwt: {
      secret: v('Auth:Jwt:Secret'),
      issuer: v('Auth:Jwt:Issuer'),
      audience: v('Auth:Jwt:Audience'),
      jwksUri: v('Auth:Jwt:JwksUri'),
      clockSkewSeconds: v('Auth:Jwt:ClockSkewSeconds'),
    },
    throttle: { maxPerSecondPerDevice: v('Throttle:MaxPerSecondPerDevice') },
    redelivery: { windowMs: v<number>('Ingestion:RedeliveryWindowSeconds') * 1000 },
    simulator: { devices: v('Simulator:Devices'), tenant: v('Simulator:Tenant'), rate: v('Simulator:Rate') },
    cors: { allowedOrigins: v('Cors:AllowedOrigins') },
    cache: {
      output: { maxEntries: v('OutputCache:MaxEntries'), maxEntryBytes: v('OutputCache:MaxEntryBytes') },
      data: { maxEntries: v('DataCache:MaxEntries') },
    },
    firmware: {
      storagePath: v('Storage:Path'),
      tempPath: v('Storage:TempPath'),
      maxUploadBytes: v('Firmware:MaxUploadBytes'),
      maxBytesPerTenant: v('Firmware:MaxBytesPerTenant'),
      maxFilesPerTenant: v('Firmware:MaxFilesPerTenant'),
    },
    database: toDatabaseConfig(resolved),
    history: toHistoryConfig(resolved),
    orders: toOrdersConfig(resolved),
    telemetry: toTelemetryConfig(v),
  };
  return deepFreeze(config);
}
