/** The resolved `Telemetry:*` keys. */
export interface TelemetryConfig {
  readonly otlpEndpoint: string | undefined;
  readonly sources: readonly string[];
  readonly sampleRatio: number;
  readonly console: boolean;
  readonly metricsIntervalMs: number;
  readonly serviceName: string;
  readonly prometheus: { readonly enabled: boolean; readonly host: string; readonly port: number };
}
