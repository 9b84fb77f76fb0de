// Issue 27 item 7: functions/ → management API. The function records a client span in the
// invocation's trace and sends its id as `traceparent`; the hub's server span is its child.
// A real hub process exporting to a real OTLP receiver; the function app's tracer provider is an
// SDK provider registered globally here, as a function app registers one.
import { createRequire } from 'node:module';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { HttpHandler, HttpResponseInit } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_JWT_AUDIENCE, DEV_JWT_ISSUER, DEV_JWT_SECRET } from '../../../src/host/security/dev-defaults.js';
import { eventually, userToken } from '../../support/app-harness.js';
import { ACCESS_KEY, startHubProcess, type HubProcess } from '../../support/hub-stamps.js';
import { OtlpReceiver } from '../../support/otlp-receiver.js';

const { HttpRequest, InvocationContext } = createRequire(import.meta.url)(
  '@azure/functions',
) as typeof import('@azure/functions');

const TRACE_ID = '5bf92f3577b34da6a3ce929d0e0e4737';
const INVOCATION_SPAN = '10f067aa0ba902b7';
const SETTINGS = [
  'WebPubSubConnectionString',
  'WebPubSubHub',
  'Auth__Jwt__Secret',
  'Auth__Jwt__Issuer',
  'Auth__Jwt__Audience',
];
const saved = new Map(SETTINGS.map((k) => [k, process.env[k]]));
const exported = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exported)] });

let receiver: OtlpReceiver;
let hub: HubProcess;
let subscribe: HttpHandler;

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  receiver = await OtlpReceiver.start();
  hub = await startHubProcess([`--Telemetry:Otlp:Endpoint=${receiver.url}`], { OTEL_BSP_SCHEDULE_DELAY: '50' });
  process.env['WebPubSubConnectionString'] = `Endpoint=${hub.url};AccessKey=${ACCESS_KEY};Version=1.0;`;
  process.env['WebPubSubHub'] = 'telemetry';
  process.env['Auth__Jwt__Secret'] = DEV_JWT_SECRET;
  process.env['Auth__Jwt__Issuer'] = DEV_JWT_ISSUER;
  process.env['Auth__Jwt__Audience'] = DEV_JWT_AUDIENCE;
  ({ subscribe } = await import('../../../functions/src/functions/subscribe.js'));
}, 60_000);

afterAll(async () => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  trace.disable();
  await provider.shutdown();
  await hub?.stop();
  await receiver?.close();
});

describe('functions/ → management API: a client span, the hub’s server span its child', () => {
  it('subscribe sends its client span’s id in the invocation’s trace; the hub records the server span under it', async () => {
    const request = new HttpRequest({
      method: 'POST',
      url: 'http://localhost:7071/api/subscribe',
      headers: { authorization: `Bearer ${await userToken('t1')}`, 'content-type': 'application/json' },
      body: { string: JSON.stringify({ connectionId: 'no-such-connection', deviceId: 'fn-dev' }) },
    });
    const context = new InvocationContext({
      functionName: 'subscribe',
      invocationId: 'inv-7',
      traceContext: { traceParent: `00-${TRACE_ID}-${INVOCATION_SPAN}-01` },
    });
    const res = (await subscribe(request, context)) as HttpResponseInit;
    expect(res.status).toBeLessThan(500);

    const clients = exported.getFinishedSpans().filter((s) => s.spanContext().traceId === TRACE_ID);
    expect(clients.length).toBeGreaterThanOrEqual(1);
    for (const c of clients) expect(c.parentSpanContext?.spanId).toBe(INVOCATION_SPAN);
    const clientIds = new Set(clients.map((c) => c.spanContext().spanId));

    const servers = () => receiver.spans.filter((s) => s.traceId === TRACE_ID && s.kind === 'SPAN_KIND_SERVER');
    await eventually(() => servers().length >= clients.length, 10_000, 'the hub’s server spans');
    expect(
      servers().every(
        (s) => clientIds.has(s.parentSpanId) && String(s.attributes['http.route']).startsWith('/api/hubs/'),
      ),
    ).toBe(true);
  }, 30_000);
});
