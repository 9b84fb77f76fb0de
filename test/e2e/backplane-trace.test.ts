// Issue 27 item 7: the backplane hop and the Redis hop. A reading sent on one instance reaches a
// subscriber on the other through Redis: the receiving instance starts a receive span linked to
// the sender's send span (fan-out: a link, not a parent), and its socket write is that span's child.
// A request's Redis commands are client spans under its server span. Real hub processes, real
// Redis, a real OTLP receiver.
import type { Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTelemetry, eventually, userToken } from '../support/app-harness.js';
import { startHubProcess, type HubProcess } from '../support/hub-stamps.js';
import { connectDevice } from '../support/mqtt-device.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { requireService } from '../support/services.js';

const run = `${process.pid}${Date.now().toString(36)}`;
const tenant = `bp${run}`;

describe('backplane and Redis hops as spans (two hub processes, Redis, OTLP receiver)', () => {
  let available = false;
  let receiver: OtlpReceiver;
  const hubs: HubProcess[] = [];
  const closers: (() => unknown)[] = [];

  beforeAll(async () => {
    available = await requireService('Redis', 6379);
    if (!available) return;
    receiver = await OtlpReceiver.start();
    for (const name of ['a', 'b']) {
      hubs.push(
        await startHubProcess(
          [
            '--ConnectionStrings:redis=redis://127.0.0.1:6379',
            `--Hub:Name=trace${run}`,
            `--Hub:InstanceId=${name}`,
            `--Telemetry:Otlp:Endpoint=${receiver.url}`,
            '--Telemetry:Metrics:ExportIntervalMs=60000',
          ],
          { OTEL_BSP_SCHEDULE_DELAY: '50' },
        ),
      );
    }
  }, 90_000);

  afterAll(async () => {
    for (const close of closers) await close();
    for (const hub of hubs) await hub.stop();
    await receiver?.close();
  });

  it('a reading ingested on A and written to a socket on B: B’s receive span links A’s send span; B’s write is its child', async ({
    skip,
  }) => {
    if (!available) return skip();
    const [a, b] = hubs as [HubProcess, HubProcess];
    const socket: Socket = await connectTelemetry(b.url, await userToken(tenant));
    closers.push(() => socket.close());
    await socket.emitWithAck('subscribe', { deviceId: 'd1' });
    const got: unknown[] = [];
    socket.on('reading', (r) => got.push(r));
    const device = await connectDevice(a.brokerUrl, tenant, 'd1');
    closers.push(() => device.endAsync());
    await device.publishAsync(`tenants/${tenant}/devices/d1/telemetry`, JSON.stringify({ v: 1 }), { qos: 1 });
    await eventually(() => got.length === 1, 5000, 'the reading on B');

    const of = (instance: string) => (s: ReceivedSpan) => s.resource['service.instance.id'] === instance;
    const send = () =>
      receiver.spans.find(
        (s) =>
          of('a')(s) &&
          s.name === 'send device' &&
          s.attributes['messaging.destination.name'] === `device:${tenant}:d1`,
      );
    const receive = () =>
      receiver.spans.find((s) => of('b')(s) && s.kind === 'SPAN_KIND_CONSUMER' && s.name === 'receive device');
    await eventually(
      () => send() !== undefined && receive() !== undefined,
      10_000,
      'A’s send span and B’s receive span',
    );
    expect(receive()!.parentSpanId).toBe('');
    expect(receive()!.links).toEqual([{ traceId: send()!.traceId, spanId: send()!.spanId }]);
    const write = () =>
      receiver.spans.find((s) => of('b')(s) && s.name === 'write' && s.traceId === receive()!.traceId);
    await eventually(() => write() !== undefined, 5000, 'B’s write span');
    expect(write()!.parentSpanId).toBe(receive()!.spanId);
  }, 30_000);

  it('a request’s Redis commands are client spans under its server span', async ({ skip }) => {
    if (!available) return skip();
    const [, b] = hubs as [HubProcess, HubProcess];
    const res = await fetch(`${b.url}/v1/devices`, { headers: { authorization: `Bearer ${await userToken(tenant)}` } });
    expect(res.status).toBe(200);
    const server = () =>
      receiver.spans.find(
        (s) =>
          s.resource['service.instance.id'] === 'b' &&
          s.kind === 'SPAN_KIND_SERVER' &&
          s.attributes['http.route'] === '/v1/devices',
      );
    await eventually(() => server() !== undefined, 5000, 'the server span');
    const commands = () =>
      receiver.spans.filter((s) => s.scope === 'TelemetryHub.Redis' && s.traceId === server()!.traceId);
    await eventually(() => commands().length > 0, 5000, 'Redis command spans in the request’s trace');
    for (const c of commands()) {
      expect(c.parentSpanId).toBe(server()!.spanId);
      expect(c.kind).toBe('SPAN_KIND_CLIENT');
      expect(c.attributes['db.system.name']).toBe('redis');
    }
  }, 30_000);
});
