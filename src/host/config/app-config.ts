import { toHostConfig, type HostConfig } from './host-config.js';
import type { ResolvedConfig } from './load-config.js';

/**
 * The resolved configuration of the whole app, frozen. Passed down; nothing below main reads the
 * environment. The host reads only its HostConfig part. (The app's type: it belongs in src/app/
 * with the area keys, and moves there with them.)
 */
export interface AppConfig extends HostConfig {
  readonly mqtt: {
    /** Unset → the embedded broker on embeddedPort. */
    readonly url: string | undefined;
    readonly embeddedPort: number;
    readonly qos: 0 | 1;
    readonly protocolVersion: 4 | 5;
    readonly clientId: string;
  };
  readonly eventHubs: {
    readonly connectionString: string | undefined;
    readonly name: string | undefined;
    readonly consumerGroup: string;
    readonly loadBalancingIntervalMs: number;
    readonly ownershipExpirationMs: number;
  };
  readonly redisUrl: string | undefined;
  readonly hub: { readonly name: string; readonly accessKey: string; readonly maxDevices: number };
  readonly jwt: {
    readonly secret: string | undefined;
    readonly issuer: string;
    readonly audience: string;
    readonly jwksUri: string | undefined;
    readonly clockSkewSeconds: number;
  };
  readonly throttle: { readonly maxPerSecondPerDevice: number };
  readonly simulator: { readonly devices: number; readonly tenant: string; readonly rate: number };
  readonly cors: { readonly allowedOrigins: readonly string[] };
  readonly rateLimit: { readonly upgradesPerMinutePerIp: number };
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
      qos: v('Ingestion:Mqtt:Qos'),
      protocolVersion: v('Ingestion:Mqtt:ProtocolVersion'),
      clientId: v('Ingestion:Mqtt:ClientId'),
    },
    eventHubs: {
      connectionString: v('ConnectionStrings:eventhubs'),
      name: v('Ingestion:EventHubs:Name'),
      consumerGroup: v('Ingestion:EventHubs:ConsumerGroup'),
      loadBalancingIntervalMs: v<number>('Ingestion:EventHubs:LoadBalancingIntervalSeconds') * 1000,
      ownershipExpirationMs: v<number>('Ingestion:EventHubs:OwnershipExpirationSeconds') * 1000,
    },
    redisUrl: v('ConnectionStrings:redis'),
    hub: { name: v('Hub:Name'), accessKey: v('Hub:AccessKey'), maxDevices: v('Hub:MaxDevices') },
    jwt: {
      secret: v('Auth:Jwt:Secret'),
      issuer: v('Auth:Jwt:Issuer'),
      audience: v('Auth:Jwt:Audience'),
      jwksUri: v('Auth:Jwt:JwksUri'),
      clockSkewSeconds: v('Auth:Jwt:ClockSkewSeconds'),
    },
    throttle: { maxPerSecondPerDevice: v('Throttle:MaxPerSecondPerDevice') },
    simulator: { devices: v('Simulator:Devices'), tenant: v('Simulator:Tenant'), rate: v('Simulator:Rate') },
    cors: { allowedOrigins: v('Cors:AllowedOrigins') },
    rateLimit: { upgradesPerMinutePerIp: v('RateLimit:UpgradesPerMinutePerIp') },
  };
  return deepFreeze(config);
}
