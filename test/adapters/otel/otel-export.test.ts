import mqtt, { type MqttClient } from 'mqtt';
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../support/app-harness.js';
import { OtlpReceiver, type ReceivedSpan } from '../../support/otlp-receiver.js';
import { requireService } from '../../support/services.js';

// The batch processors read their delay from the standard variables: export within 50 ms here.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
process.env.OTEL_BLRP_SCHEDULE_DELAY = '50';

const MOSQUITTO = 'mqtt://127.0.0.1:1883';
const run = `${process.pid}-${Date.now().toString(36)}`;

/** Random W3C ids, so each case owns its trace. */
const hexId = (bytes: number) =>
  Buffer.from(Array.from({ length: bytes }, () => Math.floor(Math.random() * 256))).toString('hex');

describe('OpenTelemetry export to a real OTLP/HTTP receiver', { timeout: 60_000 }, () => {
  let available = false;
  let receiver: OtlpReceiver;
  let device: MqttClient;
  const apps: RunningApp[] = [];
  /** All sources; one that subscribes only TelemetryHub.Http; one that samples no new trace. */
  let a: RunningApp;
  let b: RunningApp;
  let c: RunningApp;
  const sockets: Socket[] = [];

  async function hub(name: string, extra: string[]): Promise<RunningApp> {
    const app = await startApp([
      `--ConnectionStrings:mqtt=${MOSQUITTO}`,
      `--Hub:InstanceId=${name}-${run}`,
      `--Telemetry:Otlp:Endpoint=${receiver.url}`,
      '--Telemetry:Metrics:ExportIntervalMs=200',
      '--History:Enabled=false',
      ...extra,
    ]);
    apps.push(app);
    await eventually(() => app.app.telemetry.ingestion.connected, 30_000, `${name} connected to mosquitto`);
    return app;
  }

  /** Subscribes a socket.io client of `tenant` to `deviceId` and collects what it receives. */
  async function follow(app: RunningApp, tenant: string, deviceId: string): Promise<unknown[]> {
    const socket = await connectTelemetry(app.url, await userToken(tenant));
    sockets.push(socket);
    const got: unknown[] = [];
    socket.on('reading', (r: unknown) => got.push(r));
    await socket.emitWithAck('subscribe', { deviceId });
    return got;
  }

  function publish(tenant: string, deviceId: string, data: object | string, traceparent?: string): Promise<unknown> {
    const body = typeof data === 'string' ? data : JSON.stringify(data);
    return device.publishAsync(`tenants/${tenant}/devices/${deviceId}/telemetry`, body, {
      qos: 1,
      ...(traceparent ? { properties: { userProperties: { traceparent } } } : {}),
    });
  }

  const of = (instance: string) => (s: { resource: Record<string, unknown> }) =>
    s.resource['service.instance.id'] === `${instance}-${run}`;
  const spansOf = (instance: string, trace: string) =>
    receiver.spans.filter((s) => of(instance)(s) && s.traceId === trace);

  beforeAll(async () => {
    available = await requireService('Mosquitto', 1883);
    if (!available) return;
    receiver = await OtlpReceiver.start();
    device = await mqtt.connectAsync(MOSQUITTO, { protocolVersion: 5, clientId: `otel-dev-${run}` });
    // One reading per second per device in `all`: the metrics case relies on the throttle holding its readings.
    [a, b, c] = await Promise.all([
      hub('all', ['--Throttle:MaxPerSecondPerDevice=1']),
      hub('http-only', ['--Telemetry:Sources=TelemetryHub.Http']),
      hub('ratio0', ['--Telemetry:SampleRatio=0']),
    ]);
  }, 120_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    await device?.endAsync();
    await Promise.all(apps.map((app) => app.stop()));
    await receiver?.close();
  });

  it("continues a device's MQTT 5 traceparent from the ingestion span through the hub's send to the socket write", async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `ot-${run}`;
    const got = await follow(a, tenant, 'd1');
    const trace = hexId(16);
    const deviceSpan = hexId(8);
    await publish(tenant, 'd1', { t: 1 }, `00-${trace}-${deviceSpan}-01`);
    await eventually(() => got.length === 1, 20_000, 'the reading at the subscriber');

    await eventually(() => spansOf('all', trace).length >= 3, 20_000, 'ingestion, send and write spans');
    const spans = spansOf('all', trace);
    const ingestion = one(spans, 'process tenants/{tenantId}/devices/{deviceId}/telemetry');
    expect(ingestion).toMatchObject({
      scope: 'TelemetryHub.Ingestion.Mqtt',
      kind: 'SPAN_KIND_CONSUMER',
      parentSpanId: deviceSpan,
    });
    expect(ingestion.attributes).toMatchObject({
      'telemetryhub.tenant_id': tenant,
      'telemetryhub.device_id': 'd1',
      'telemetryhub.ingestion.source': 'mqtt',
    });
    const send = one(spans, 'send device');
    expect(send).toMatchObject({
      scope: 'TelemetryHub.Hub',
      kind: 'SPAN_KIND_PRODUCER',
      parentSpanId: ingestion.spanId,
    });
    expect(send.links).toEqual([{ traceId: trace, spanId: ingestion.spanId }]);
    expect(send.attributes).toMatchObject({
      'messaging.destination.name': `device:${tenant}:d1`,
      'telemetryhub.seq': 1,
    });
    const write = one(spans, 'write');
    expect(write).toMatchObject({
      scope: 'TelemetryHub.Hub',
      parentSpanId: send.spanId,
      attributes: { 'telemetryhub.transport': 'socketio' },
    });
    // The subscriber never sees the trace context.
    expect(got[0]).not.toHaveProperty('traceparent');
  });

  it('starts a new trace at ingestion when the hop stripped the traceparent', async ({ skip }) => {
    if (!available) return skip();
    const tenant = `os-${run}`;
    const got = await follow(a, tenant, 'd2');
    await publish(tenant, 'd2', { t: 2 });
    await eventually(() => got.length === 1, 20_000, 'the reading at the subscriber');
    const isIngestion = (s: ReceivedSpan) =>
      of('all')(s) &&
      s.attributes['telemetryhub.device_id'] === 'd2' &&
      s.attributes['telemetryhub.tenant_id'] === tenant;
    await eventually(() => receiver.spans.some(isIngestion), 20_000, 'the ingestion span');
    const ingestion = receiver.spans.find(isIngestion)!;
    expect(ingestion.parentSpanId).toBe('');
    await eventually(
      () => spansOf('all', ingestion.traceId).some((s) => s.name === 'write'),
      20_000,
      'the write span of the new trace',
    );
  });

  it('continues an HTTP caller’s trace in a server span named by the route template; the request log carries its ids', async ({
    skip,
  }) => {
    if (!available) return skip();
    const trace = hexId(16);
    const caller = hexId(8);
    const res = await fetch(`${a.url}/v1/devices`, {
      headers: {
        authorization: `Bearer ${await userToken(`oh-${run}`)}`,
        traceparent: `00-${trace}-${caller}-01`,
        tracestate: 'vendor=x',
      },
    });
    expect(res.status).toBe(200);
    await eventually(() => spansOf('all', trace).length === 1, 20_000, 'the server span');
    const server = spansOf('all', trace)[0]!;
    expect(server).toMatchObject({
      scope: 'TelemetryHub.Http',
      kind: 'SPAN_KIND_SERVER',
      name: 'GET /v1/devices',
      parentSpanId: caller,
    });
    expect(server.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/v1/devices',
      'http.response.status_code': 200,
    });
    const line = a.logs.find((l) => l.msg === 'request' && l.traceId === trace);
    expect(line).toMatchObject({ trace_id: trace, span_id: server.spanId });
    // Log lines leave as log records of the category's source, in the same trace.
    await eventually(() => receiver.logs.some((l) => l.traceId === trace), 20_000, 'the request line as a log record');
    expect(receiver.logs.find((l) => l.traceId === trace)).toMatchObject({
      scope: 'TelemetryHub.Logs.Http',
      body: 'request',
      spanId: server.spanId,
      severityText: 'INFO',
    });

    // A hop that stripped the header: the server span is the root of a new trace.
    const fresh = await fetch(`${a.url}/v1/devices?limit=1`, {
      headers: { authorization: `Bearer ${await userToken(`oh-${run}`)}` },
    });
    expect(fresh.status).toBe(200);
    const freshLine = a.logs.findLast((l) => l.msg === 'request' && l.route === '/v1/devices')!;
    expect(freshLine.traceId).not.toBe(trace);
    await eventually(() => spansOf('all', freshLine.traceId as string).length === 1, 20_000, 'the new trace');
    expect(spansOf('all', freshLine.traceId as string)[0]).toMatchObject({
      name: 'GET /v1/devices',
      parentSpanId: '',
      spanId: freshLine.span_id,
    });
  });

  it('exports every operator metric under its semantic-convention name and unit', async ({ skip }) => {
    if (!available) return skip();
    const tenant = `om-${run}`;
    const got = await follow(a, tenant, 'd3');
    // Three at once: the throttle (1/s) passes the first, holds the second, replaces it with the third.
    for (let n = 0; n < 3; n++) await publish(tenant, 'd3', { n });
    await publish(tenant, 'd3', '{not json');
    await eventually(() => got.length === 2, 20_000, 'the first and the conflated last reading');
    expect(await (await fetch(`${a.url}/health/ready`)).json()).toMatchObject({ status: 'Healthy' });
    const mine = { 'service.instance.id': `all-${run}` };
    await eventually(
      () =>
        (receiver.latest('telemetryhub.throttle.conflations') ?? 0) >= 1 &&
        (receiver.latest('telemetryhub.health.check.results', {
          'telemetryhub.health.check': 'ingestion',
          'telemetryhub.health.status': 'Healthy',
        }) ?? 0) >= 1,
      20_000,
      'metrics after the activity',
    );
    expect(
      receiver.metrics.filter((m) => m.resource['service.instance.id'] === mine['service.instance.id']).length,
    ).toBeGreaterThan(0);

    const units = Object.fromEntries(receiver.metrics.map((m) => [m.name, m.unit]));
    expect(units).toMatchObject({
      'http.server.request.duration': 's',
      'telemetryhub.readings.accepted': '{reading}',
      'telemetryhub.readings.dropped': '{reading}',
      'telemetryhub.throttle.conflations': '{reading}',
      'telemetryhub.throttle.emitted': '{reading}',
      'telemetryhub.hub.deliveries': '{message}',
      'telemetryhub.hub.conflations': '{message}',
      'telemetryhub.hub.slow_consumers': '{connection}',
      'telemetryhub.hub.connections': '{connection}',
      'telemetryhub.hub.groups': '{group}',
      'telemetryhub.delivery.duration': 's',
      'telemetryhub.health.check.results': '{result}',
      'telemetryhub.health.check.healthy': '1',
    });
    expect(
      receiver.latest('telemetryhub.readings.accepted', { 'telemetryhub.ingestion.source': 'mqtt' }),
    ).toBeGreaterThanOrEqual(5);
    expect(
      receiver.latest('telemetryhub.readings.dropped', {
        'telemetryhub.ingestion.source': 'mqtt',
        'telemetryhub.drop.reason': 'bad_json',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      receiver.latest('telemetryhub.hub.deliveries', { 'telemetryhub.transport': 'socketio' }),
    ).toBeGreaterThanOrEqual(4);
    expect(receiver.latest('telemetryhub.hub.slow_consumers', { 'telemetryhub.transport': 'webpubsub' })).toBe(0);
    expect(
      receiver.latest('telemetryhub.hub.connections', { 'telemetryhub.transport': 'socketio' }),
    ).toBeGreaterThanOrEqual(1);
    expect(receiver.latest('telemetryhub.hub.groups')).toBeGreaterThanOrEqual(1);
    expect(
      receiver.latest('telemetryhub.delivery.duration', { 'telemetryhub.transport': 'socketio' }),
    ).toBeGreaterThanOrEqual(4);
    expect(
      receiver.latest('http.server.request.duration', {
        'http.route': '/v1/devices',
        'http.response.status_code': 200,
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(receiver.latest('telemetryhub.health.check.healthy', { 'telemetryhub.health.check': 'ingestion' })).toBe(1);
  });

  it('records nothing from a source no subscription matches', async ({ skip }) => {
    if (!available) return skip();
    const tenant = `ou-${run}`;
    const got = await follow(b, tenant, 'd4');
    const trace = hexId(16);
    const traceparent = `00-${trace}-${hexId(8)}-01`;
    await publish(tenant, 'd4', { t: 4 }, traceparent);
    await eventually(() => got.length === 1, 20_000, 'the reading at the subscriber');
    await fetch(`${b.url}/health/ready`);
    await eventually(
      () => receiver.metrics.some((m) => of('http-only')(m) && m.name === 'http.server.request.duration'),
      20_000,
      'the HTTP metric',
    );
    await eventually(
      () => receiver.spans.some((s) => of('http-only')(s) && s.scope === 'TelemetryHub.Http'),
      20_000,
      'an HTTP span',
    );
    expect(new Set(receiver.spans.filter(of('http-only')).map((s) => s.scope))).toEqual(new Set(['TelemetryHub.Http']));
    expect(new Set(receiver.metrics.filter(of('http-only')).map((m) => m.scope))).toEqual(
      new Set(['TelemetryHub.Http']),
    );
    expect(receiver.logs.filter(of('http-only'))).toEqual([]); // log sources are TelemetryHub.Logs.*
    // No ingestion span re-parented the reading: it still carries the device's own traceparent.
    expect(b.app.telemetry.registry.last(tenant, 'd4')?.traceparent).toBe(traceparent);
  });

  it('issue 25 item 5: at Telemetry:SampleRatio=0 nothing is sampled, whatever a device or an HTTP caller decided', async ({
    skip,
  }) => {
    if (!available) return skip();
    const tenant = `or-${run}`;
    // One device per case: each reading passes its own device's throttle at once.
    const got = [
      await follow(c, tenant, 'new'),
      await follow(c, tenant, 'unsampled'),
      await follow(c, tenant, 'sampled'),
    ];
    await publish(tenant, 'new', { n: 1 }); // a new trace: ratio 0 drops it
    await publish(tenant, 'unsampled', { n: 2 }, `00-${hexId(16)}-${hexId(8)}-00`); // the device did not sample
    const sampled = hexId(16);
    const deviceSpan = hexId(8);
    await publish(tenant, 'sampled', { n: 3 }, `00-${sampled}-${deviceSpan}-01`); // the device asks for sampling: refused
    await eventually(() => got.every((g) => g.length === 1), 20_000, 'all three readings');
    await fetch(`${c.url}/health/live`); // no traceparent: dropped
    const httpTrace = hexId(16);
    const res = await fetch(`${c.url}/health/live`, { headers: { traceparent: `00-${httpTrace}-${hexId(8)}-01` } });
    // The caller's trace still names the request (its log line), only the sampling is the hub's.
    expect(c.logs.find((l) => l.msg === 'request' && l.traceId === httpTrace)).toBeDefined();
    await res.text();
    // The reading keeps the device's ids with the hub's decision, not the device's.
    expect(c.app.telemetry.registry.last(tenant, 'sampled')?.traceparent).toBe(`00-${sampled}-${deviceSpan}-00`);

    // Stopping the hub flushes its exporters: whatever it recorded has reached the receiver after this.
    apps.splice(apps.indexOf(c), 1);
    await c.stop();
    expect(receiver.spans.filter(of('ratio0'))).toEqual([]);
  });
});

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found, `spans named ${name}`).toHaveLength(1);
  return found[0]!;
}
