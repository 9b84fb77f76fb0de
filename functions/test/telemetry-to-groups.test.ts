import { createRequire } from 'node:module';
import type {
  EventHubFunctionOptions,
  EventHubHandler,
  InvocationContext as Context,
  LogLevel,
} from '@azure/functions';
import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectTelemetry, eventually, startApp, userToken, type RunningApp } from '../../test/support/app-harness.js';
import { eventsOfBatch } from '../src/azure/event-hub-batch.js';
import {
  handleTelemetryBatch,
  TelemetryDeliveryError,
  type TelemetryEvent,
} from '../src/handlers/telemetry-to-groups.js';

// The package is CommonJS whose classes Node's ESM named-export detection misses.
const functions = createRequire(import.meta.url)('@azure/functions') as typeof import('@azure/functions');

type WireReading = {
  tenantId: string;
  deviceId: string;
  seq: number;
  ts: number;
  receivedAt: number;
  data: Record<string, unknown>;
};

/** One event as the Node worker hands it over: body, and its entries of the trigger metadata arrays. */
interface BindingEvent {
  body: unknown;
  properties?: Record<string, unknown>;
  systemProperties?: Record<string, unknown>;
}

const SETTINGS = [
  'WebPubSubConnectionString',
  'WebPubSubHub',
  'EventHubDeviceTenants',
  'EventHubTenant',
  'EventHubTrustSenderDeviceId',
];
const saved = new Map(SETTINGS.map((k) => [k, process.env[k]]));

let hub: RunningApp;
let handler: EventHubHandler;
let registered: EventHubFunctionOptions | undefined;
const sockets: Socket[] = [];

function configure(accessKey: string): void {
  process.env['WebPubSubConnectionString'] = `Endpoint=${hub.url};AccessKey=${accessKey};Version=1.0;`;
  process.env['WebPubSubHub'] = 'telemetry';
  // The tenant is configuration: devices of tenant `fn`, and dev-9 of `other`.
  process.env['EventHubDeviceTenants'] = 'dev-1=fn, dev-2=fn, iot-7=fn, dev-9=other';
  delete process.env['EventHubTenant'];
  // Most events here name their device in `deviceId`, as trusted senders to a plain event hub do.
  process.env['EventHubTrustSenderDeviceId'] = 'true';
}

beforeAll(async () => {
  hub = await startApp();
  configure(hub.app.config.hub.accessKey);
  // Capture what the function file registers, then let the real registration run.
  const eventHub = functions.app.eventHub.bind(functions.app);
  vi.spyOn(functions.app, 'eventHub').mockImplementation((name, options) => {
    if (name === 'telemetryToGroups') registered = options as EventHubFunctionOptions;
    eventHub(name, options);
  });
  handler = (await import('../src/functions/telemetry-to-groups.js')).telemetryToGroups;
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
  configure(hub.app.config.hub.accessKey);
});
afterAll(async () => {
  for (const [k, v] of saved) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await hub?.stop();
});

let sequenceNumber = 1000;

/**
 * Invokes the registered handler as the worker does for `cardinality: 'many'`: the bodies, and the
 * per-event metadata as parallel arrays in triggerMetadata (keys first-letter-lowercased, as the
 * worker does). Returns the handler's result and the warnings it logged.
 */
async function invoke(events: BindingEvent[]): Promise<{ warnings: unknown[][] }> {
  const warnings: unknown[][] = [];
  const numbers = events.map(() => sequenceNumber++);
  const context = new functions.InvocationContext({
    functionName: 'telemetryToGroups',
    invocationId: 'inv-eh',
    logHandler: (level: LogLevel, ...args: unknown[]) => void (level === 'warning' && warnings.push(args)),
    triggerMetadata: {
      partitionContext: { eventHubName: 'telemetry', consumerGroup: 'telemetry-functions', partitionId: '0' },
      sequenceNumberArray: numbers,
      propertiesArray: events.map((e) => e.properties ?? {}),
      systemPropertiesArray: events.map((e, i) => ({
        sequenceNumber: numbers[i],
        offset: String(numbers[i]! * 100),
        ...e.systemProperties,
      })),
    },
  });
  await handler(
    events.map((e) => e.body),
    context as Context,
  );
  return { warnings };
}

/** An event of `deviceId`; `claimedTenant` is a `tenant_id` property the device set, which is ignored. */
function reading(deviceId: string, data: unknown, claimedTenant?: string): BindingEvent {
  return { body: data, properties: { deviceId, ...(claimedTenant !== undefined && { tenant_id: claimedTenant }) } };
}

async function subscriber(
  tenant: string,
  deviceIds: string[],
): Promise<{ of(d: string): WireReading[]; all: WireReading[] }> {
  const socket = await connectTelemetry(hub.url, await userToken(tenant));
  sockets.push(socket);
  const all: WireReading[] = [];
  socket.on('reading', (r: WireReading) => all.push(r));
  for (const deviceId of deviceIds)
    expect(await socket.emitWithAck('subscribe', { deviceId })).toMatchObject({ ok: true });
  return { all, of: (d) => all.filter((r) => r.deviceId === d) };
}

describe('telemetryToGroups (functions/src/functions/telemetry-to-groups.ts)', () => {
  it('is registered as an Event Hubs trigger taking batches', () => {
    expect(registered).toMatchObject({
      connection: 'EventHubConnection',
      eventHubName: '%EventHubName%',
      consumerGroup: '%EventHubConsumerGroup%',
      cardinality: 'many',
    });
    expect(registered!.handler).toBe(handler);
  });

  it('sends every valid reading of a mixed batch to its group through the management API; bad events are counted and skipped', async () => {
    const socketio = await subscriber('fn', ['dev-1', 'dev-2', 'iot-7']);
    // The official Web PubSub client, joined to one device group on the same hub.
    const { WebPubSubClient } = await import('@azure/web-pubsub-client');
    const negotiated = await fetch(`${hub.url}/api/negotiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await userToken('fn')}` },
    });
    const wps = new WebPubSubClient(((await negotiated.json()) as { url: string }).url);
    const wpsReadings: WireReading[] = [];
    wps.on('group-message', (e) => wpsReadings.push(e.message.data as WireReading));
    await wps.start();
    try {
      await wps.joinGroup('device:fn:dev-2');
      const other = await subscriber('other', ['dev-9', 'dev-1']);

      const batch: BindingEvent[] = [];
      const bad: BindingEvent[] = [
        reading('ghost', { v: 1 }, 'fn'), // a device no tenant is configured for, claiming one
        reading('../dev', { v: 1 }), // a bad device id: no device of a tenant either
        reading('dev-1', 'not json, the worker passes it on as text'),
        reading('dev-1', [1, 2, 3]), // not an object
        reading('dev-1', { blob: 'x'.repeat(17 * 1024) }), // too large
        reading('dev-1', JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`)), // too deep
        reading('dev-1', { ts: 'yesterday', v: 1 }), // bad ts
        reading('dev-1', Buffer.from([0x7b, 0xff, 0x7d])), // bad UTF-8 bytes
      ];
      // 30 readings of dev-1 in one batch: far beyond the hub's throttle of 5/s, and all of them arrive.
      for (let n = 0; n < 30; n++) {
        batch.push(reading('dev-1', { n, temperature: 20 + n / 10 }));
        if (n % 3 === 0) batch.push(reading('dev-2', { n }));
        if (n % 4 === 0 && bad.length > 0) batch.push(bad.shift()!);
      }
      // IoT Hub: the device id is the service's system property, the body raw bytes, ts ISO 8601.
      batch.push({
        body: Buffer.from('{"ts":"2026-11-22T10:00:00Z","temperature":7}'),
        properties: { tenant_id: 'other', deviceId: 'spoofed' },
        systemProperties: { 'iothub-connection-device-id': 'iot-7', 'iothub-enqueuedtime': '2026-11-22T10:00:01Z' },
      });
      batch.push(reading('dev-9', { n: 99 }));
      // A device claiming another tenant in its properties: it still reaches only its configured tenant.
      batch.push(reading('dev-1', { n: 30, temperature: 23 }, 'other'));
      const first = sequenceNumber;
      const { warnings } = await invoke(batch);

      const expectedDev1 = Array.from({ length: 31 }, (_, n) => n);
      await eventually(
        () =>
          socketio.of('dev-1').length === 31 && socketio.of('dev-2').length === 10 && socketio.of('iot-7').length === 1,
        5000,
        'every good reading',
      );
      await eventually(
        () => wpsReadings.length === 10 && other.all.length === 1,
        5000,
        'web pubsub and other-tenant readings',
      );
      expect(socketio.of('dev-1').map((r) => r.data['n'])).toEqual(expectedDev1);
      expect(socketio.of('dev-1')[5]).toMatchObject({
        tenantId: 'fn',
        deviceId: 'dev-1',
        data: { n: 5, temperature: 20.5 },
      });
      expect(Object.keys(socketio.of('dev-1')[0]!).sort()).toEqual([
        'data',
        'deviceId',
        'receivedAt',
        'seq',
        'tenantId',
        'ts',
      ]);
      expect(socketio.of('iot-7')[0]).toMatchObject({
        tenantId: 'fn',
        deviceId: 'iot-7',
        ts: Date.parse('2026-11-22T10:00:00Z'),
        data: { temperature: 7 },
      });
      expect(wpsReadings.map((r) => r.data['n'])).toEqual(socketio.of('dev-2').map((r) => r.data['n']));
      expect(wpsReadings).toEqual(socketio.of('dev-2'));
      expect(other.all).toHaveLength(1);
      expect(other.all[0]).toMatchObject({ tenantId: 'other', deviceId: 'dev-9', data: { n: 99 } });
      // seq is the event's sequence number in its partition + 1: increasing per device, with gaps.
      const seqs = socketio.of('dev-1').map((r) => r.seq);
      expect(seqs[0]).toBeGreaterThanOrEqual(first + 1);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
      expect(socketio.all.some((r) => r.deviceId === 'spoofed')).toBe(false);

      const dropped = warnings.find((w) => w[0] === 'telemetry batch: readings dropped')?.[1];
      expect(dropped).toEqual({
        received: batch.length,
        dropped: { bad_tenant_id: 2, bad_json: 1, not_object: 1, too_large: 1, too_deep: 1, bad_ts: 1, bad_utf8: 1 },
      });
    } finally {
      wps.stop();
    }
  });

  it('a batch with nothing valid sends nothing and completes', async () => {
    const { warnings } = await invoke([
      reading('', { v: 1 }),
      { body: undefined, properties: { tenant_id: 'fn', deviceId: 'dev-1' } },
    ]);
    expect(warnings.map((w) => w[0])).toEqual(['telemetry batch: readings dropped']);
  });

  it('when the management API takes none of the readings, the invocation fails (so the retry policy redoes it) without its detail', async () => {
    configure(`${hub.app.config.hub.accessKey}-wrong`);
    const failure = invoke([reading('dev-1', { v: 1 })]);
    await expect(failure).rejects.toBeInstanceOf(TelemetryDeliveryError);
    await expect(failure).rejects.toThrow('none of 1 readings reached the real-time service');
  });

  it('a missing setting fails the invocation with a generic message', async () => {
    delete process.env['WebPubSubHub'];
    await expect(invoke([reading('dev-1', { v: 1 })])).rejects.toThrow(
      'the function app is not configured; see its log',
    );
  });

  it('without EventHubTenant or EventHubDeviceTenants the invocation fails: the tenant is never taken from the event', async () => {
    delete process.env['EventHubDeviceTenants'];
    await expect(invoke([reading('dev-1', { v: 1 }, 'fn')])).rejects.toThrow(
      'the function app is not configured; see its log',
    );
  });

  it('with EventHubTenant every device belongs to that tenant, whatever tenant_id the event claims', async () => {
    delete process.env['EventHubDeviceTenants'];
    process.env['EventHubTenant'] = 'fn';
    const fn = await subscriber('fn', ['free-1']);
    const other = await subscriber('other', ['free-1']);
    const { warnings } = await invoke([reading('free-1', { v: 1 }, 'other'), reading('../dev', { v: 1 })]);
    await eventually(() => fn.all.length === 1, 5000, 'the reading at its configured tenant');
    expect(warnings.find((w) => w[0] === 'telemetry batch: readings dropped')?.[1]).toMatchObject({
      dropped: { bad_device_id: 1 },
    });
    expect(fn.all[0]).toMatchObject({ tenantId: 'fn', deviceId: 'free-1' });
    expect(other.all).toEqual([]);
  });

  it("issue 25 item 4: without EventHubTrustSenderDeviceId a sender's deviceId is refused (counted as untrusted_device_id); IoT Hub's id passes", async () => {
    delete process.env['EventHubTrustSenderDeviceId'];
    const fn = await subscriber('fn', ['dev-1', 'iot-7']);
    const { warnings } = await invoke([
      reading('dev-1', { forged: 1 }), // any sender to the event hub naming fn's dev-1
      {
        body: { t: 7 },
        properties: { deviceId: 'dev-1' },
        systemProperties: { 'iothub-connection-device-id': 'iot-7' },
      },
    ]);
    await eventually(() => fn.all.length === 1, 5000, "the authenticated device's reading");
    expect(fn.all[0]).toMatchObject({ tenantId: 'fn', deviceId: 'iot-7', data: { t: 7 } });
    expect(warnings.find((w) => w[0] === 'telemetry batch: readings dropped')?.[1]).toMatchObject({
      dropped: { untrusted_device_id: 1 },
    });
    expect(fn.of('dev-1')).toEqual([]);

    process.env['EventHubTrustSenderDeviceId'] = 'maybe';
    await expect(invoke([reading('dev-1', { v: 1 })])).rejects.toThrow(
      'the function app is not configured; see its log',
    );
  });
});

describe('handleTelemetryBatch', () => {
  // These events name their device in `deviceId`: senders trusted as on a plain event hub.
  const tenancy = { tenant: 't', deviceTenants: new Map<string, string>(), trustSenderDeviceId: true };
  const event = (deviceId: string, n: number, sequenceNumber?: number): TelemetryEvent => ({
    body: { n },
    properties: { deviceId },
    systemProperties: {},
    sequenceNumber,
  });

  /** A fake management API: records sends per group after a random delay; sends to `failing` reject (from the `failFrom`-th send of the group on). */
  function fakeService(failing: string[] = [], failFrom = 0) {
    const sent = new Map<string, WireReading[]>();
    const attempts = new Map<string, number>();
    const service = {
      group: (group: string) => ({
        sendToAll: async (reading: WireReading) => {
          await new Promise((r) => setTimeout(r, Math.random() * 5));
          const attempt = attempts.get(group) ?? 0;
          attempts.set(group, attempt + 1);
          if (failing.includes(group) && attempt >= failFrom)
            throw Object.assign(new Error('Service unavailable, Bearer secret'), { statusCode: 503 });
          sent.set(group, [...(sent.get(group) ?? []), reading]);
        },
      }),
    } as unknown as Pick<WebPubSubServiceClient, 'group'>;
    return { service, sent };
  }

  it('keeps each device in event order while sending devices concurrently; one failing device costs only its own readings, and fails the invocation', async () => {
    const { service, sent } = fakeService(['device:t:flaky']);
    const warnings: [object, string][] = [];
    const events = Array.from({ length: 60 }, (_, i) => event(['a', 'b', 'c', 'flaky'][i % 4]!, i, i));
    const outcome = handleTelemetryBatch(events, {
      service,
      tenancy,
      now: () => 1_000,
      log: { warn: (o, m) => warnings.push([o, m]) },
      concurrency: 2,
    });
    await expect(outcome).rejects.toBeInstanceOf(TelemetryDeliveryError);
    await expect(outcome).rejects.toMatchObject({
      failed: 15,
      sent: 45,
      message: '15 of 60 readings did not reach the real-time service',
    });
    for (const d of ['a', 'b', 'c']) {
      const got = sent.get(`device:t:${d}`)!;
      expect(got.map((r) => r.data['n'])).toEqual(
        events.filter((e) => e.properties['deviceId'] === d).map((e) => (e.body as { n: number }).n),
      );
      // seq = the partition sequence number + 1, as on the hub's own Event Hubs source.
      expect(got.map((r) => r.seq)).toEqual(got.map((r) => (r.data['n'] as number) + 1));
      expect(got[0]).toMatchObject({ ts: 1_000, receivedAt: 1_000 });
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]![1]).toBe('telemetry batch: management api failed');
    expect(warnings[0]![0]).toMatchObject({ failed: 15, sent: 45, upstream: { statusCode: 503 } });
  });

  it("stops a device's sends at its first failure, so what went out is a prefix a retry can complete without a gap", async () => {
    const { service, sent } = fakeService(['device:t:a'], 2);
    const events = Array.from({ length: 10 }, (_, i) => event(i % 2 === 0 ? 'a' : 'b', i, i));
    const outcome = handleTelemetryBatch(events, { service, tenancy, now: () => 5, log: { warn: () => {} } });
    await expect(outcome).rejects.toMatchObject({ failed: 3, sent: 7 });
    expect(sent.get('device:t:a')!.map((r) => r.data['n'])).toEqual([0, 2]);
    expect(sent.get('device:t:b')!.map((r) => r.data['n'])).toEqual([1, 3, 5, 7, 9]);
  });

  it('seq is 0 when the binding gave no sequence number', async () => {
    const { service, sent } = fakeService();
    await handleTelemetryBatch([event('a', 1)], { service, tenancy, now: () => 5, log: { warn: () => {} } });
    expect(sent.get('device:t:a')![0]!.seq).toBe(0);
  });
});

describe('eventsOfBatch', () => {
  it('pairs bodies with the metadata arrays, sequence numbers as numbers or strings', () => {
    const events = eventsOfBatch(['{', { a: 1 }], {
      propertiesArray: [{ tenant_id: 't' }, { tenant_id: 'u', deviceId: 'd' }],
      systemPropertiesArray: [
        { 'iothub-connection-device-id': 'iot', 'x-opt-sequence-number': 7 },
        { sequenceNumber: '8' },
      ],
    });
    expect(events).toEqual([
      {
        body: '{',
        properties: { tenant_id: 't' },
        systemProperties: { 'iothub-connection-device-id': 'iot', 'x-opt-sequence-number': 7 },
        sequenceNumber: 7,
      },
      {
        body: { a: 1 },
        properties: { tenant_id: 'u', deviceId: 'd' },
        systemProperties: { sequenceNumber: '8' },
        sequenceNumber: 8,
      },
    ]);
  });

  it('takes a single message (cardinality one) as a batch of one', () => {
    expect(
      eventsOfBatch({ a: 1 }, { properties: { tenant_id: 't' }, systemProperties: {}, sequenceNumber: 3 }),
    ).toEqual([{ body: { a: 1 }, properties: { tenant_id: 't' }, systemProperties: {}, sequenceNumber: 3 }]);
  });
});
