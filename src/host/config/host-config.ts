import type { LogLevel } from './parsers.js';
import type { EnvironmentName } from './key-definition.js';
import type { ResolvedConfig } from './load-config.js';

/** What the host itself reads of the resolved configuration (its keys are HOST_KEYS). */
export interface HostConfig {
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
  readonly host: { readonly shutdownTimeoutMs: number };
  readonly health: { readonly checkTimeoutMs: number };
  readonly logging: { readonly defaultLevel: LogLevel; readonly categories: Readonly<Record<string, LogLevel>> };
  /** Keys from files or the command line that nothing reads (logged as a warning at start). */
  readonly unknownKeys: readonly string[];
  /** Configured secret values (and the secret parts of connection strings): scrubbed from every log line. */
  readonly secrets: readonly string[];
  /** Keys and their values for the start-up log; secrets redacted (connection strings keep their host). */
  describe(): Record<string, unknown>;
}

/** The host's part of a resolved configuration (not frozen: the app adds its areas, then freezes). */
export function toHostConfig(resolved: ResolvedConfig): HostConfig {
  const v = <T>(key: string) => resolved.values.get(key) as T;
  return {
    environment: resolved.environment,
    isDevelopment: resolved.environment === 'Development',
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
    host: { shutdownTimeoutMs: v<number>('Host:ShutdownTimeoutSeconds') * 1000 },
    health: { checkTimeoutMs: v<number>('Health:CheckTimeoutSeconds') * 1000 },
    logging: { defaultLevel: v('Logging:LogLevel:Default'), categories: resolved.categories },
    unknownKeys: resolved.unknownKeys,
    secrets: resolved.secrets,
    describe: () => resolved.describe(),
  };
}
