import type { EnvironmentName } from './schema.js';
import { SCHEMA } from './schema.js';
import type { LogLevel } from './parsers.js';
import type { EventTenancy } from '../../ingest/eventhubs/event-tenancy.js';
import { REDACTED, redactText, secretFragments } from './redact-secrets.js';

/** The resolved configuration, frozen. Passed down; nothing below main reads the environment. */
export interface AppConfig {
  readonly environment: EnvironmentName;
  readonly isDevelopment: boolean;
  readonly http: {
    readonly port: number;
    readonly host: string;
    readonly bodyLimitBytes: number;
    readonly webSocketUpgradesPerIpPerSecond: number;
    readonly webSocketUpgradeBurstPerIp: number;
    readonly maxPendingUpgrades: number;
    /** `Http:PublicBaseUrl` without a trailing slash; unset → the request's own scheme and Host. */
    readonly publicBaseUrl: string | undefined;
    /** `Http:TrustedProxies`: IPs and CIDR ranges whose X-Forwarded-Proto/Host are believed. */
    readonly trustedProxies: readonly string[];
    readonly headersTimeoutMs: number;
    readonly requestTimeoutMs: number;
    readonly keepAliveTimeoutMs: number;
    readonly maxConnections: number;
    readonly maxHeaderBytes: number;
    readonly closeLingerMs: number;
  };
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
  readonly hub: {
    readonly name: string;
    readonly accessKey: string;
    readonly maxDevices: number;
    readonly maxDevicesPerTenant: number;
    readonly maxGroupsPerConnection: number;
    readonly maxConnectionsPerUser: number;
    readonly maxConnectionsPerTenant: number;
    readonly maxMessageBytes: number;
  };
  readonly jwt: {
    readonly secret: string | undefined;
    readonly issuer: string;
    readonly audience: string;
    readonly jwksUri: string | undefined;
    readonly clockSkewSeconds: number;
  };
  readonly throttle: { readonly maxPerSecondPerDevice: number };
  readonly host: { readonly shutdownTimeoutMs: number };
  readonly health: { readonly checkTimeoutMs: number };
  readonly simulator: { readonly devices: number; readonly tenant: string; readonly rate: number };
  readonly cors: { readonly allowedOrigins: readonly string[] };
  readonly logging: { readonly defaultLevel: LogLevel; readonly categories: Readonly<Record<string, LogLevel>> };
  /** Keys from files or the command line that nothing reads (logged as a warning at start). */
  readonly unknownKeys: readonly string[];
  /** Configured secret values (and the secret parts of connection strings): scrubbed from every log line. */
  readonly secrets: readonly string[];
  /** Keys and their values for the start-up log; secrets redacted (connection strings keep their host). */
  describe(): Record<string, unknown>;
}

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

function isConnectionString(key: string): boolean {
  return key.startsWith('ConnectionStrings:');
}

export function toAppConfig(
  environment: EnvironmentName,
  values: ReadonlyMap<string, unknown>,
  categories: Record<string, LogLevel>,
  unknownKeys: string[],
): AppConfig {
  const v = <T>(key: string) => values.get(key) as T;
  const config: AppConfig = {
    environment,
    isDevelopment: environment === 'Development',
    http: {
      port: v('Http:Port'),
      host: v('Http:Host'),
      bodyLimitBytes: v('Http:BodyLimitBytes'),
      webSocketUpgradesPerIpPerSecond: v('Http:WebSocketUpgradesPerIpPerSecond'),
      webSocketUpgradeBurstPerIp: v('Http:WebSocketUpgradeBurstPerIp'),
      maxPendingUpgrades: v('Http:MaxPendingUpgrades'),
      publicBaseUrl: v<string | undefined>('Http:PublicBaseUrl')?.replace(/\/+$/, ''),
      trustedProxies: v<string[] | undefined>('Http:TrustedProxies') ?? [],
      headersTimeoutMs: v<number>('Http:HeadersTimeoutSeconds') * 1000,
      requestTimeoutMs: v<number>('Http:RequestTimeoutSeconds') * 1000,
      keepAliveTimeoutMs: v<number>('Http:KeepAliveTimeoutSeconds') * 1000,
      maxConnections: v('Http:MaxConnections'),
      maxHeaderBytes: v('Http:MaxHeaderBytes'),
      closeLingerMs: v<number>('Http:CloseLingerSeconds') * 1000,
    },
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
    },
    eventHubs: {
      connectionString: v('ConnectionStrings:eventhubs'),
      name: v('Ingestion:EventHubs:Name'),
      consumerGroup: v('Ingestion:EventHubs:ConsumerGroup'),
      tenancy: { tenant: v('Ingestion:EventHubs:Tenant'), deviceTenants: v('Ingestion:EventHubs:DeviceTenants') ?? new Map() },
      loadBalancingIntervalMs: v<number>('Ingestion:EventHubs:LoadBalancingIntervalSeconds') * 1000,
      ownershipExpirationMs: v<number>('Ingestion:EventHubs:OwnershipExpirationSeconds') * 1000,
    },
    redisUrl: v('ConnectionStrings:redis'),
    hub: {
      name: v('Hub:Name'),
      accessKey: v('Hub:AccessKey'),
      maxDevices: v('Hub:MaxDevices'),
      maxDevicesPerTenant: v('Hub:MaxDevicesPerTenant'),
      maxGroupsPerConnection: v('Hub:MaxGroupsPerConnection'),
      maxConnectionsPerUser: v('Hub:MaxConnectionsPerUser'),
      maxConnectionsPerTenant: v('Hub:MaxConnectionsPerTenant'),
      maxMessageBytes: v('Hub:MaxMessageBytes'),
    },
    jwt: {
      secret: v('Auth:Jwt:Secret'),
      issuer: v('Auth:Jwt:Issuer'),
      audience: v('Auth:Jwt:Audience'),
      jwksUri: v('Auth:Jwt:JwksUri'),
      clockSkewSeconds: v('Auth:Jwt:ClockSkewSeconds'),
    },
    throttle: { maxPerSecondPerDevice: v('Throttle:MaxPerSecondPerDevice') },
    host: { shutdownTimeoutMs: v<number>('Host:ShutdownTimeoutSeconds') * 1000 },
    health: { checkTimeoutMs: v<number>('Health:CheckTimeoutSeconds') * 1000 },
    simulator: { devices: v('Simulator:Devices'), tenant: v('Simulator:Tenant'), rate: v('Simulator:Rate') },
    cors: { allowedOrigins: v('Cors:AllowedOrigins') },
    logging: { defaultLevel: v('Logging:LogLevel:Default'), categories },
    unknownKeys,
    secrets: SCHEMA.filter((def) => def.secret && typeof values.get(def.key) === 'string').flatMap((def) =>
      secretFragments(values.get(def.key) as string, isConnectionString(def.key)),
    ),
    describe() {
      const out: Record<string, unknown> = { environment };
      for (const def of SCHEMA) {
        if (!values.has(def.key)) continue;
        const value = values.get(def.key);
        out[def.key] = !def.secret ? value : isConnectionString(def.key) ? redactText(String(value)) : REDACTED;
      }
      return out;
    },
  };
  return deepFreeze(config);
}
