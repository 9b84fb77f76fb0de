import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildHub, type ChildHub } from '../../support/child-hub.js';
import { OtlpReceiver } from '../../support/otlp-receiver.js';

/**
 * The built hub as a real process, configured only by the standard OTEL_* variables, with batch and
 * export intervals of a minute: what the receiver gets, it gets from the flush at shutdown.
 */
describe('OpenTelemetry in the hub process', () => {
  let receiver: OtlpReceiver;
  let hub: ChildHub;

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    hub = await startChildHub(
      ['--environment=Development', '--Http:Port=0', '--Simulator:Devices=0', '--Ingestion:Mqtt:EmbeddedPort=0'],
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_SERVICE_NAME: 'hub-under-test',
        OTEL_BSP_SCHEDULE_DELAY: '60000',
        OTEL_BLRP_SCHEDULE_DELAY: '60000',
        OTEL_METRIC_EXPORT_INTERVAL: '60000',
      },
      40_000,
    );
  }, 45_000);

  afterAll(async () => {
    await hub?.stop();
    await receiver?.close();
  });

  it('flushes the last spans, metrics and log records when it stops', async () => {
    const trace = 'aa'.repeat(16);
    const res = await fetch(`${hub.url}/health/ready`, {
      headers: { traceparent: `00-${trace}-${'bb'.repeat(8)}-01` },
    });
    expect(res.status).toBe(200);
    expect(receiver.spans).toHaveLength(0); // nothing leaves before the minute is up…

    expect(await hub.stop()).toBe(0);

    // …and everything has left once the process exited.
    const server = receiver.spans.find((s) => s.traceId === trace);
    expect(server).toMatchObject({
      scope: 'TelemetryHub.Http',
      kind: 'SPAN_KIND_SERVER',
      parentSpanId: 'bb'.repeat(8),
    });
    expect(server!.resource).toMatchObject({ 'service.name': 'hub-under-test' });
    expect(receiver.latest('http.server.request.duration', { 'http.response.status_code': 200 })).toBe(1);
    expect(receiver.latest('telemetryhub.health.check.healthy', { 'telemetryhub.health.check': 'host' })).toBe(1);
    // Log lines of the whole life leave as records, the request line inside its trace.
    expect(receiver.logs.find((l) => l.body === 'request' && l.traceId === trace)).toMatchObject({
      scope: 'TelemetryHub.Logs.Http',
      severityText: 'INFO',
    });
    expect(receiver.logs.some((l) => l.body === 'stop signal received')).toBe(true);
  });
});
