import { ROOT_CONTEXT } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/compose/load-app-config.js';
import { traceparentContext } from '../../../src/host/trace-context.js';
import { LocalHistograms } from '../../../src/adapters/otel/local-histograms.js';
import { parseSourcePatterns, SourceFilter } from '../../../src/adapters/otel/source-filter.js';
import { Telemetry, type TelemetryProviders } from '../../../src/adapters/otel/telemetry.js';

const providers = (sampleRatio = 1): TelemetryProviders & { logged: string[] } => {
  const logged: string[] = [];
  return {
    logged,
    tracer: (name) => new BasicTracerProvider().getTracer(name),
    meter: (name) => new MeterProvider().getMeter(name),
    histogram: (scope, name, options) => new LocalHistograms().create(scope, name, options),
    sampleRatio,
    emitLog: (source) => logged.push(source),
    shutdown: async () => undefined,
  };
};

describe('named sources and subscriptions', () => {
  it('matches exact names (any case) and trailing wildcards', () => {
    const filter = new SourceFilter(['TelemetryHub.Ingestion.*', 'telemetryhub.hub']);
    expect(filter.matches('TelemetryHub.Ingestion.Mqtt')).toBe(true);
    expect(filter.matches('TelemetryHub.Ingestion.EventHubs')).toBe(true);
    expect(filter.matches('TelemetryHub.Hub')).toBe(true);
    expect(filter.matches('TelemetryHub.Http')).toBe(false);
    expect(filter.matches('TelemetryHub.Hub.SocketIo')).toBe(false);
    expect(new SourceFilter(['*']).matches('Anything.At.All')).toBe(true);
    expect(new SourceFilter([]).matches('TelemetryHub.Hub')).toBe(false);
    // Whether any log source could match, so log lines are not even looked at otherwise.
    expect(new SourceFilter(['TelemetryHub.*']).mayMatchUnder('TelemetryHub.Logs.')).toBe(true);
    expect(new SourceFilter(['TelemetryHub.Logs.Http']).mayMatchUnder('TelemetryHub.Logs.')).toBe(true);
    expect(
      new SourceFilter(['TelemetryHub.Http', 'TelemetryHub.Ingestion.*']).mayMatchUnder('TelemetryHub.Logs.'),
    ).toBe(false);
  });

  it('refuses a pattern that is neither a name nor a trailing wildcard, naming the key', () => {
    expect(parseSourcePatterns(' TelemetryHub.Ingestion.* , TelemetryHub.Hub ')).toEqual([
      'TelemetryHub.Ingestion.*',
      'TelemetryHub.Hub',
    ]);
    expect(() => parseSourcePatterns('TelemetryHub.*.Mqtt')).toThrow(/not a source name/);
    expect(() =>
      loadConfig({
        args: ['--Telemetry:Sources=Telemetry Hub'],
        env: { HUB_ENVIRONMENT: 'Development' },
        contentRoot: '/nonexistent',
      }),
    ).toThrow(/Telemetry:Sources/);
  });

  it('gives no source (nothing to record with) when unmatched or when telemetry is off', () => {
    const telemetry = new Telemetry(providers(), new SourceFilter(['TelemetryHub.Ingestion.*']));
    expect(telemetry.source('TelemetryHub.Ingestion.Mqtt')).toMatchObject({ name: 'TelemetryHub.Ingestion.Mqtt' });
    expect(telemetry.source('TelemetryHub.Hub')).toBeUndefined();
    expect(Telemetry.off.source('TelemetryHub.Ingestion.Mqtt')).toBeUndefined();
    expect(Telemetry.off.enabled).toBe(false);
  });

  it('starts no span for a trace that is not sampled: a new one at ratio 0, or a caller’s unsampled one', () => {
    const source = new Telemetry(providers(0), new SourceFilter(['*'])).source('TelemetryHub.Hub')!;
    expect(source.startSpan('x', {}, ROOT_CONTEXT)).toBeUndefined();
    expect(source.startSpan('x', {}, traceparentContext(`00-${'1'.repeat(32)}-${'2'.repeat(16)}-00`))).toBeUndefined();
    const kept = source.startSpan('x', {}, traceparentContext(`00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`));
    expect(kept?.spanContext().traceId).toBe('1'.repeat(32));
    const always = new Telemetry(providers(1), new SourceFilter(['*'])).source('TelemetryHub.Hub')!;
    expect(always.startSpan('x', {}, ROOT_CONTEXT)).toBeDefined();
  });

  it('exports a log line only when its category’s log source is subscribed, apart from spans and metrics', () => {
    const p = providers();
    const telemetry = new Telemetry(p, new SourceFilter(['TelemetryHub.Logs.Http']));
    telemetry.log(JSON.stringify({ level: 30, category: 'Http', msg: 'request' }));
    telemetry.log(JSON.stringify({ level: 30, category: 'Ingestion.Mqtt', msg: 'connected' }));
    telemetry.log('not json');
    expect(p.logged).toEqual(['TelemetryHub.Logs.Http']);
    const tracesOnly = new Telemetry(p, new SourceFilter(['TelemetryHub.Http']));
    tracesOnly.log(JSON.stringify({ level: 30, category: 'Http', msg: 'request' }));
    expect(p.logged).toHaveLength(1);
  });

  it('off by default; the console exporter only in Development', () => {
    const dev = loadConfig({ args: [], env: { HUB_ENVIRONMENT: 'Development' }, contentRoot: '/nonexistent' });
    expect(dev.telemetry).toMatchObject({
      otlpEndpoint: undefined,
      console: false,
      sources: ['TelemetryHub.*'],
      sampleRatio: 1,
    });
    const aliased = loadConfig({
      args: [],
      env: {
        HUB_ENVIRONMENT: 'Development',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/',
        OTEL_TRACES_SAMPLER_ARG: '0.01',
      },
      contentRoot: '/nonexistent',
    });
    expect(aliased.telemetry).toMatchObject({ otlpEndpoint: 'http://127.0.0.1:4318', sampleRatio: 0.01 });
    expect(() =>
      loadConfig({
        args: ['--Telemetry:Console=true'],
        env: { HUB_ENVIRONMENT: 'Staging' },
        contentRoot: '/nonexistent',
      }),
    ).toThrow(/Telemetry:Console/);
  });
});
