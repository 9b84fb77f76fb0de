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
  /** Health check results. */
  health: 'TelemetryHub.Health',
} as const;
