import { toHostConfig, type HostConfig } from '../host/config/host-config.js';
import { ConfigError, resolveConfig, type ConfigInputs } from '../host/config/load-config.js';
import { HOST_KEYS } from '../host/config/host-keys.js';
import { WELL_KNOWN_SECRETS } from './keys/security-keys.js';
import { GATEWAY_KEYS } from './keys/gateway-keys.js';
import { TELEMETRY_KEYS, toTelemetryConfig } from './keys/telemetry-keys.js';
import type { TelemetryConfig } from '../adapters/otel/telemetry-config.js';
import type { Stamp } from '../features/gateway/stamps.js';

/** The gateway's resolved configuration (HOST_KEYS + GATEWAY_KEYS), frozen. */
export interface GatewayConfig extends HostConfig {
  readonly gateway: {
    readonly stamps: readonly Stamp[];
    readonly tenants: ReadonlyMap<string, string>;
    readonly defaultStamp: string | undefined;
    readonly healthIntervalMs: number;
    readonly healthTimeoutMs: number;
    readonly upstreamTimeoutMs: number;
    readonly catalogueCacheMs: number;
    /** The database catalogue's server; unset → the in-memory catalogue from `Gateway:Tenants`. */
    readonly database:
      | { readonly connectionString: string; readonly maxConnections: number; readonly statementTimeoutMs: number }
      | undefined;
  };
  readonly jwt: {
    readonly secret: string | undefined;
    readonly issuer: string;
    readonly audience: string;
    readonly jwksUri: string | undefined;
    readonly clockSkewSeconds: number;
  };
  readonly accessKey: string | undefined;
  /** `Telemetry:*`, as the hub reads them: the gateway's server and client spans. */
  readonly telemetry: TelemetryConfig;
}

/** Resolves and checks the gateway's configuration once. Throws ConfigError naming the key. */
export function loadGatewayConfig(inputs: ConfigInputs): GatewayConfig {
  const resolved = resolveConfig(inputs, [...HOST_KEYS, ...GATEWAY_KEYS, ...TELEMETRY_KEYS], {
    wellKnownSecrets: WELL_KNOWN_SECRETS,
  });
  const v = <T>(key: string) => resolved.values.get(key) as T;
  const stamps = v<Stamp[]>('Gateway:Stamps');
  const tenants = v<Map<string, string> | undefined>('Gateway:Tenants') ?? new Map<string, string>();
  const defaultStamp = v<string | undefined>('Gateway:DefaultStamp');
  const names = new Set(stamps.map((s) => s.name));
  const problems: string[] = [];
  const postgres = v<string | undefined>('ConnectionStrings:postgres');
  if (postgres !== undefined && resolved.values.has('Gateway:Tenants'))
    problems.push(
      'Gateway:Tenants: not with ConnectionStrings:postgres, whose table tenant_stamps is the catalogue then (set one of them)',
    );
  if (defaultStamp !== undefined && !names.has(defaultStamp))
    problems.push(`Gateway:DefaultStamp: '${defaultStamp}' is not one of Gateway:Stamps`);
  for (const [tenant, stamp] of tenants)
    if (!names.has(stamp))
      problems.push(`Gateway:Tenants: tenant '${tenant}' names stamp '${stamp}', which Gateway:Stamps does not list`);
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...toHostConfig(resolved),
    gateway: Object.freeze({
      stamps,
      tenants,
      defaultStamp,
      healthIntervalMs: v<number>('Gateway:HealthIntervalSeconds') * 1000,
      healthTimeoutMs: v<number>('Gateway:HealthTimeoutSeconds') * 1000,
      upstreamTimeoutMs: v<number>('Gateway:UpstreamTimeoutSeconds') * 1000,
      catalogueCacheMs: v<number>('Gateway:CatalogueCacheSeconds') * 1000,
      database:
        postgres === undefined
          ? undefined
          : {
              connectionString: postgres,
              maxConnections: v<number>('Database:MaxConnections'),
              statementTimeoutMs: Math.round(v<number>('Database:StatementTimeoutSeconds') * 1000),
            },
    }),
    jwt: Object.freeze({
      secret: v<string | undefined>('Auth:Jwt:Secret'),
      issuer: v<string>('Auth:Jwt:Issuer'),
      audience: v<string>('Auth:Jwt:Audience'),
      jwksUri: v<string | undefined>('Auth:Jwt:JwksUri'),
      clockSkewSeconds: v<number>('Auth:Jwt:ClockSkewSeconds'),
    }),
    accessKey: v<string | undefined>('Hub:AccessKey'),
    telemetry: Object.freeze(toTelemetryConfig(v)),
  });
}
