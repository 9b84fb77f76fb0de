// Issue 27 item 7: one request followed from the gateway through the hub, the queue and the worker
// to the database as one trace, every span's parent recorded. Real processes (gateway, hub, worker),
// real PostgreSQL and RabbitMQ, a real OTLP receiver that all three export to.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import amqp from 'amqplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, userToken } from '../support/app-harness.js';
import { GATEWAY_MAIN, startChildHub, type ChildHub } from '../support/child-hub.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { createTestDatabase, requirePostgres, type TestDatabase } from '../support/postgres.js';
import { RABBITMQ_URL, rabbitMqOrReport } from '../support/rabbitmq-for-tests.js';

const WORKER = fileURLToPath(new URL('../../dist/src/worker.js', import.meta.url));
const MIGRATE = fileURLToPath(new URL('../../dist/src/tools/migrate-cli.js', import.meta.url));
const ACCESS_KEY = 'trace-test-access-key-0123456789abcdef';
// Spans leave each process within 50 ms instead of the exporter's default 5 s.
const ENV = { HUB_ENVIRONMENT: 'Development', OTEL_BSP_SCHEDULE_DELAY: '50' };

const services = (await requirePostgres()) && (await rabbitMqOrReport('a trace at every hop'));

describe.runIf(services)('a trace at every hop (gateway, hub, RabbitMQ, worker, PostgreSQL, OTLP receiver)', () => {
  let receiver: OtlpReceiver;
  let db: TestDatabase;
  let hub: ChildHub;
  let gateway: ChildHub;
  const queueName = `test.trace.${randomUUID()}`;
  const stops: (() => Promise<unknown>)[] = [];

  const common = () => [
    `--ConnectionStrings:postgres=${db.url}`,
    `--ConnectionStrings:rabbitmq=${RABBITMQ_URL}`,
    `--Queue:Name=${queueName}`,
    `--Telemetry:Otlp:Endpoint=${receiver.url}`,
    '--Telemetry:Metrics:ExportIntervalMs=60000',
    `--Hub:AccessKey=${ACCESS_KEY}`,
  ];

  beforeAll(async () => {
    receiver = await OtlpReceiver.start();
    db = await createTestDatabase('trace_hops');
    const migrate = spawn(process.execPath, [MIGRATE, `--ConnectionStrings:postgres=${db.url}`], { stdio: 'ignore' });
    expect(await new Promise((resolve) => migrate.once('exit', resolve))).toBe(0);

    // The hub relays its outbox to RabbitMQ; the standalone worker alone consumes.
    hub = await startChildHub(
      [
        ...common(),
        '--Http:Port=0',
        '--Ingestion:Mqtt:EmbeddedPort=0',
        '--Simulator:Devices=0',
        '--Worker:Enabled=false',
        '--Http:TrustedProxies=127.0.0.1',
        '--Hub:InstanceId=hub-1',
      ],
      ENV,
      30_000,
    );
    stops.push(() => hub.stop());
    const worker = spawn(process.execPath, [WORKER, ...common(), '--Outbox:Relay=false', '--Hub:InstanceId=worker-1'], {
      env: { ...process.env, ...ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    worker.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    worker.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    stops.push(async () => worker.exitCode === null && (worker.kill('SIGTERM'), await exited));
    await eventually(() => out.includes('worker ready'), 20_000, `the worker to be ready:\n${out}`);
    gateway = await startChildHub(
      [
        '--environment=Development',
        '--Http:Port=0',
        `--Gateway:Stamps=pool=${hub.url}`,
        '--Gateway:Tenants=acme=pool',
        '--Gateway:HealthIntervalSeconds=0.2',
        `--Telemetry:Otlp:Endpoint=${receiver.url}`,
        `--Hub:AccessKey=${ACCESS_KEY}`,
      ],
      ENV,
      30_000,
      GATEWAY_MAIN,
    );
    stops.push(() => gateway.stop());
  }, 90_000);

  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await receiver?.close();
    await db?.drop();
    const connection = await amqp.connect(RABBITMQ_URL);
    const channel = await connection.createChannel();
    await channel.deleteQueue(queueName);
    await channel.deleteQueue(`${queueName}.dead`);
    await connection.close();
  });

  it('PUT /api/orders through the gateway: one trace from the gateway to the worker’s INSERT, no span without its parent', async () => {
    const token = await userToken('acme', { sub: 'bob', roles: ['buyer'] });
    const put = await fetch(`${gateway.url}/api/orders/trace-1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customerId: 'cust-1', lines: [{ sku: 'gw', quantity: 1, unitPrice: 500 }] }),
    });
    expect(put.status).toBe(200);

    const gatewayServer = () =>
      receiver.spans.find(
        (s) =>
          s.kind === 'SPAN_KIND_SERVER' &&
          s.attributes['http.route'] === '/{*path}' &&
          s.attributes['http.request.method'] === 'PUT',
      );
    await eventually(() => gatewayServer() !== undefined, 10_000, 'the gateway’s server span');
    const traceId = gatewayServer()!.traceId;
    const ofTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    const workerInsert = () =>
      ofTrace().find((s) => s.resource['service.instance.id'] === 'worker-1' && s.name.startsWith('INSERT'));
    const consumer = () => ofTrace().find((s) => s.kind === 'SPAN_KIND_CONSUMER');
    // The consumer span ends last (after its statements): once it is here, the whole trace is.
    await eventually(
      () => workerInsert() !== undefined && consumer() !== undefined,
      20_000,
      'the worker’s INSERT and consumer spans in the same trace',
    );
    const spans = ofTrace();
    const ids = new Set(spans.map((s) => s.spanId));
    const orphans = spans.filter((s) => s.parentSpanId !== '' && !ids.has(s.parentSpanId));
    expect(orphans.map(describeSpan)).toEqual([]);
    expect(spans.filter((s) => s.parentSpanId === '').map(describeSpan)).toEqual([describeSpan(gatewayServer()!)]);

    // The hops, each the child of the one before.
    const parentOf = (s: ReceivedSpan) => spans.find((p) => p.spanId === s.parentSpanId);
    const gatewayClient = spans.find((s) => s.kind === 'SPAN_KIND_CLIENT' && s.scope === 'TelemetryHub.Gateway')!;
    expect(gatewayClient, 'the gateway’s client span').toBeDefined();
    expect(parentOf(gatewayClient)).toBe(gatewayServer());
    const hubServer = spans.find(
      (s) => s.kind === 'SPAN_KIND_SERVER' && s.resource['service.instance.id'] === 'hub-1',
    )!;
    expect(hubServer.attributes['http.route']).toBe('/api/orders/{orderId}');
    expect(parentOf(hubServer)).toBe(gatewayClient);
    const hubStatements = spans.filter(
      (s) => s.scope === 'TelemetryHub.Postgres' && s.resource['service.instance.id'] === 'hub-1',
    );
    expect(hubStatements.map((s) => s.name)).toEqual(expect.arrayContaining([`BEGIN ${db.name}`, `COMMIT ${db.name}`]));
    expect(hubStatements.every((s) => parentOf(s) === hubServer && s.kind === 'SPAN_KIND_CLIENT')).toBe(true);
    const send = spans.find((s) => s.kind === 'SPAN_KIND_PRODUCER' && s.scope === 'TelemetryHub.Queue')!;
    expect(send.attributes['messaging.system']).toBe('rabbitmq');
    expect(parentOf(send)).toBe(hubServer);
    const process = spans.find(
      (s) => s.kind === 'SPAN_KIND_CONSUMER' && s.resource['service.instance.id'] === 'worker-1',
    )!;
    expect(parentOf(process)).toBe(send);
    expect(parentOf(workerInsert()!)).toBe(process);
    expect(workerInsert()!.attributes['db.system.name']).toBe('postgresql');
  }, 60_000);
});

function describeSpan(s: ReceivedSpan): string {
  return `${String(s.resource['service.instance.id'])} ${s.scope} ${s.kind} ${s.name}`;
}
