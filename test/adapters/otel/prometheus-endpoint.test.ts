import { Writable } from 'node:stream';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/compose/load-app-config.js';
import { createTelemetry } from '../../../src/adapters/otel/telemetry-sdk.js';
import { startChildHub, type ChildHub } from '../../support/child-hub.js';

const config = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  loadConfig({ args, env: { HUB_ENVIRONMENT: 'Development', ...env }, contentRoot: '/nonexistent' });

describe('Prometheus endpoint (Telemetry:Prometheus:*)', () => {
  it('is off by default, on 127.0.0.1:9464 when enabled; a bad port stops start-up naming the key', () => {
    expect(config([]).telemetry.prometheus).toEqual({ enabled: false, host: '127.0.0.1', port: 9464 });
    expect(
      config(['--Telemetry:Prometheus:Enabled=true'], { OTEL_EXPORTER_PROMETHEUS_PORT: '9465' }).telemetry.prometheus,
    ).toEqual({ enabled: true, host: '127.0.0.1', port: 9465 });
    expect(() => config(['--Telemetry:Prometheus:Port=70000'])).toThrow(/Telemetry:Prometheus:Port/);
  });

  it('serves the metrics without any OTLP endpoint, and alone starts no span and records no log', async () => {
    const lines: { url?: string }[] = [];
    const log = pino(
      new Writable({
        write: (chunk, _enc, done) => done(void lines.push(JSON.parse(String(chunk)) as { url?: string })),
      }),
    );
    const base = config(['--Telemetry:Prometheus:Enabled=true', '--Telemetry:Prometheus:Port=0']).telemetry;
    expect(base.otlpEndpoint).toBeUndefined();
    const telemetry = createTelemetry(base, { instanceId: 'prom-only', log });
    const source = telemetry.source('TelemetryHub.Hub')!;
    source.meter.createCounter('telemetryhub.test.count', { unit: '{thing}' }).add(3, { kind: 'a' });
    expect(source.startSpan('x', {}, ROOT_CONTEXT)).toBeUndefined();
    expect(telemetry.recordsLogs).toBe(false);

    await telemetry.service.start(AbortSignal.timeout(5000));
    try {
      const url = lines[0]?.url;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const res = await fetch(url!);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      const text = await res.text();
      expect(text).toContain('# TYPE telemetryhub_test_count_total counter');
      expect(text).toMatch(/telemetryhub_test_count_total\{kind="a",otel_scope_name="TelemetryHub.Hub"\} 3/);
      expect(text).toMatch(/target_info\{service_name="telemetry-hub",service_instance_id="prom-only"\} 1/);
      expect((await fetch(url!.replace('/metrics', '/'))).status).toBe(404);
      expect((await fetch(url!, { method: 'POST' })).status).toBe(405);
    } finally {
      await telemetry.service.stop(AbortSignal.timeout(5000));
    }
    await expect(fetch(lines[0]!.url!)).rejects.toThrow();
  });

  describe('in the hub process', () => {
    let hub: ChildHub;
    let metricsUrl: string;

    beforeAll(async () => {
      hub = await startChildHub(
        [
          '--environment=Development',
          '--Http:Port=0',
          '--Ingestion:Mqtt:EmbeddedPort=0',
          '--Simulator:Devices=1',
          '--Telemetry:Prometheus:Enabled=true',
          '--Telemetry:Prometheus:Port=0',
        ],
        {},
        30_000,
      );
      metricsUrl = /(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(hub.output())![1]!;
    }, 35_000);

    afterAll(async () => {
      await hub?.stop();
    });

    it('logs the bound URL of port 0 and serves every area’s metrics there, not on the public port', async () => {
      const text = await (await fetch(metricsUrl)).text();
      for (const metric of [
        'telemetryhub_readings_accepted_total',
        'telemetryhub_readings_dropped_total',
        'telemetryhub_throttle_emitted_total',
        'telemetryhub_hub_deliveries_total',
        'telemetryhub_hub_connections',
        'telemetryhub_delivery_duration',
        'telemetryhub_history_pending',
        'telemetryhub_history_lag',
      ]) {
        expect(text, metric).toContain(`# TYPE ${metric} `);
      }
      expect((await fetch(`${hub.url}/metrics`)).status).toBe(404);
    });

    it('a second hub on the same port exits 78 naming Telemetry:Prometheus:Port', async () => {
      const port = new URL(metricsUrl).port;
      const second = startChildHub(
        [
          '--environment=Development',
          '--Http:Port=0',
          '--Ingestion:Mqtt:EmbeddedPort=0',
          '--Simulator:Devices=0',
          '--Telemetry:Prometheus:Enabled=true',
          `--Telemetry:Prometheus:Port=${port}`,
        ],
        {},
        30_000,
      );
      await expect(second).rejects.toThrow(
        /exited with 78[\s\S]*Telemetry:Prometheus:Port: 127\.0\.0\.1:\d+ is in use/,
      );
    });

    it('closes the listener when the host stops', async () => {
      expect(await hub.stop()).toBe(0);
      await expect(fetch(metricsUrl)).rejects.toThrow();
    });
  });
});
