/**
 * The named sources every area records through. `Telemetry:Sources` subscribes to them by exact
 * name or wildcard. Log lines record through `TelemetryHub.Logs.<their category>` (e.g.
 * `TelemetryHub.Logs.Http` for the request lines), apart from spans and metrics, so a busy
 * deployment can keep HTTP traces and leave request lines to stdout.
 */
export const Sources = {
  /** HTTP server spans (continuing an incoming `traceparent`) and `http.server.request.duration`. */
  http: 'TelemetryHub.Http',
  /** A span per MQTT reading (continuing the device's `traceparent`); readings accepted/dropped. */
  mqtt: 'TelemetryHub.Ingestion.Mqtt',
  /** A span per Event Hubs event (`traceparent` or `Diagnostic-Id`); readings accepted/dropped. */
  eventHubs: 'TelemetryHub.Ingestion.EventHubs',
  /** The per-device throttle: conflated and emitted readings. */
  ingestion: 'TelemetryHub.Ingestion',
  /** Send spans, socket write spans, deliveries, conflations, slow consumers, connections, groups, delivery latency. */
  hub: 'TelemetryHub.Hub',
  /** Messages published to and received from the Redis backplane. */
  backplane: 'TelemetryHub.Backplane',
  /** The history writer: backlog, readings written and refused, failed batches, commit lag. */
  history: 'TelemetryHub.History',
  /** Health check results. */
  health: 'TelemetryHub.Health',
  /** A client span per PostgreSQL statement run inside a sampled trace. */
  postgres: 'TelemetryHub.Postgres',
  /** A client span per Redis command sent inside a sampled trace. */
  redis: 'TelemetryHub.Redis',
  /** A producer span per message published to the queue, a consumer span per delivery handled. */
  queue: 'TelemetryHub.Queue',
  /** The gateway's client span per request forwarded to an instance. */
  gateway: 'TelemetryHub.Gateway',
} as const;
