import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A collector stand-in for the telemetry-on rows: accepts every OTLP/HTTP export and drops it, so
 * the hub pays for recording and exporting, not for a slow receiver. Lives in the orchestrator,
 * started on first import, never keeping it alive.
 */
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
server.unref();

export const OTLP_SINK_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/**
 * The hub's telemetry in the "telemetry on" rows: every span and metric source (not the log
 * sources: each request line would become a log record), new traces sampled at 1 %.
 */
export const TELEMETRY_ON_ARGS = [
  `--Telemetry:Otlp:Endpoint=${OTLP_SINK_URL}`,
  '--Telemetry:SampleRatio=0.01',
  '--Telemetry:Sources=TelemetryHub.Http,TelemetryHub.Ingestion,TelemetryHub.Ingestion.*,TelemetryHub.Hub,TelemetryHub.Backplane,TelemetryHub.Health',
];
