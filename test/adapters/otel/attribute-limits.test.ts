import { ROOT_CONTEXT } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTelemetry } from '../../../src/adapters/otel/telemetry-sdk.js';
import { OtlpReceiver } from '../../support/otlp-receiver.js';

// Issue 25 item 5: span (and log record) attribute values have a length limit, so what a caller
// sends (a dropped reading's device id, a log field) cannot blow up what is exported.

/** The documented limit (README, Observability). */
const LIMIT = 1024;

describe('attribute length limit on what the SDK exports (real OTLP/HTTP receiver)', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterAll(() => receiver?.close());

  it(`keeps ${LIMIT} characters of a span attribute and of a log record attribute`, async () => {
    const telemetry = createTelemetry(
      {
        otlpEndpoint: receiver.url.replace(/\/+$/, ''),
        sources: ['TelemetryHub.*'],
        sampleRatio: 1,
        console: false,
        metricsIntervalMs: 3_600_000,
        prometheus: { enabled: false, host: '127.0.0.1', port: 0 },
        serviceName: 'limits',
      },
      { instanceId: 'limits-1', log: { info: () => {} } },
    );
    const huge = 'd'.repeat(100_000);
    const span = telemetry.source('TelemetryHub.Ingestion.Mqtt')!.startSpan('process', {}, ROOT_CONTEXT)!;
    span.setAttributes({ 'telemetryhub.device_id': huge, 'telemetryhub.tenant_id': 'acme' });
    span.end();
    telemetry.log(JSON.stringify({ level: 40, category: 'Ingestion', msg: 'reading dropped', deviceId: huge }));
    // Stopping flushes what the batch processors hold.
    await telemetry.service.stop(AbortSignal.timeout(10_000));

    const exported = receiver.spans.find((s) => s.resource['service.instance.id'] === 'limits-1');
    expect(exported?.attributes['telemetryhub.device_id']).toBe('d'.repeat(LIMIT));
    expect(exported?.attributes['telemetryhub.tenant_id']).toBe('acme');
    const log = receiver.logs.find((l) => l.resource['service.instance.id'] === 'limits-1');
    expect(log?.attributes['deviceId']).toBe('d'.repeat(LIMIT));
  });
});
