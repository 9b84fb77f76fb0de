import { createRequire } from 'node:module';
import { createServer, request, type Server } from 'node:http';
import type { EventHubHandler, InvocationContext as Context } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TelemetryDeliveryError } from '../../../functions/src/handlers/telemetry-to-groups.js';
import { eventually, startApp, type RunningApp } from '../../support/app-harness.js';
import { subscribe } from '../../e2e/eventhubs/e2e-support.js';
import { ChildHost, EPHEMERAL, killChildren, MAIN } from '../support/child-host.js';

// The package is CommonJS whose classes Node's ESM named-export detection misses.
const functions = createRequire(import.meta.url)('@azure/functions') as typeof import('@azure/functions');

/**
 * A network hop in front of the hub's management API that, while `outage` names a group, answers
 * its sends with 503 (the SDK retries, then gives up): a real failure between the function and the
 * service, nothing faked in either.
 */
function failingProxy(target: string): { server: Server; outage: { group: string | undefined }; url: () => string } {
  const outage: { group: string | undefined } = { group: undefined };
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    if (outage.group !== undefined && decodeURIComponent(req.url ?? '').includes(`/groups/${outage.group}/`)) {
      req.resume();
      res.writeHead(503, { 'retry-after': '0' }).end();
      return;
    }
    const forward = request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.writeHead(502).end());
    req.pipe(forward);
  });
  return { server, outage, url: () => `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

let hub: RunningApp;
let proxy: ReturnType<typeof failingProxy>;
let handler: EventHubHandler;

beforeAll(async () => {
  hub = await startApp();
  proxy = failingProxy(hub.url);
  await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
  process.env['WebPubSubConnectionString'] =
    `Endpoint=${proxy.url()};AccessKey=${hub.app.config.hub.accessKey};Version=1.0;`;
  process.env['WebPubSubHub'] = 'telemetry';
  process.env['EventHubTenant'] = 'retry';
  handler = (await import('../../../functions/src/functions/telemetry-to-groups.js')).telemetryToGroups;
});
afterAll(async () => {
  killChildren();
  await hub?.stop();
  await new Promise((resolve) => proxy?.server.close(resolve));
});

/** Invokes the registered function with one batch, as the worker does for `cardinality: 'many'`. */
function invoke(batch: { deviceId: string; n: number; sequenceNumber: number }[]): Promise<unknown> {
  const context = new functions.InvocationContext({
    functionName: 'telemetryToGroups',
    invocationId: 'retry',
    logHandler: () => undefined,
    triggerMetadata: {
      sequenceNumberArray: batch.map((e) => e.sequenceNumber),
      propertiesArray: batch.map(() => ({})),
      // As IoT Hub stamps them: the device id it authenticated.
      systemPropertiesArray: batch.map((e) => ({
        sequenceNumber: e.sequenceNumber,
        'iothub-connection-device-id': e.deviceId,
      })),
    },
  });
  return Promise.resolve(
    handler(
      batch.map((e) => ({ n: e.n })),
      context as Context,
    ),
  );
}

describe('issue 12 item 8: telemetryToGroups fails the invocation on any failed send; the retried batch delivers no duplicate seq', () => {
  it('a batch of which one device could not be sent fails the invocation; its retry completes that device and repeats nothing at a subscriber', async () => {
    const subscriber = await subscribe(hub, 'retry', ['pump-1', 'pump-2']);
    // One partition: sequence numbers 500…519, the two devices interleaved.
    const batch = Array.from({ length: 20 }, (_, i) => ({
      deviceId: i % 2 === 0 ? 'pump-1' : 'pump-2',
      n: i,
      sequenceNumber: 500 + i,
    }));

    proxy.outage.group = 'device:retry:pump-2';
    const first = invoke(batch);
    await expect(first).rejects.toBeInstanceOf(TelemetryDeliveryError);
    await expect(first).rejects.toThrow('10 of 20 readings did not reach the real-time service');
    await eventually(() => subscriber.of('pump-1').length === 10, 5000, "pump-1's readings");

    // The outage is over; the trigger's retry policy runs the same batch again.
    proxy.outage.group = undefined;
    await invoke(batch);
    await eventually(() => subscriber.of('pump-2').length === 10, 5000, "pump-2's readings after the retry");
    // A last sentinel batch: once it arrived, anything the retry repeated would have arrived before it.
    await invoke([{ deviceId: 'pump-1', n: 99, sequenceNumber: 520 }]);
    await eventually(() => subscriber.of('pump-1').some((r) => r.data['n'] === 99), 5000, 'the sentinel');

    for (const device of ['pump-1', 'pump-2']) {
      const seqs = subscriber.of(device).map((r) => r.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
    expect(subscriber.of('pump-1').map((r) => r.data['n'])).toEqual([0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 99]);
    expect(subscriber.of('pump-2').map((r) => r.data['n'])).toEqual([1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    // seq = the partition sequence number + 1, as on the hub's own Event Hubs source.
    expect(subscriber.of('pump-2')[0]!.seq).toBe(502);
    subscriber.socket.close();
  }, 30_000);

  it('Event Hubs in Production without Redis (checkpoints in memory replay everything on restart) stops start-up with exit 78 naming ConnectionStrings:redis', async () => {
    const child = new ChildHost(MAIN, [...EPHEMERAL, '--Ingestion:EventHubs:Tenant=acme'], {
      HUB_ENVIRONMENT: 'Production',
      ConnectionStrings__eventhubs: 'Endpoint=sb://127.0.0.1:1;SharedAccessKeyName=k;SharedAccessKey=v;EntityPath=e',
      Hub__AccessKey: 'k'.repeat(40),
      Auth__Jwt__Secret: 's'.repeat(40),
      Auth__Jwt__Issuer: 'issuer',
      Auth__Jwt__Audience: 'audience',
    });
    expect((await child.exited).code).toBe(78);
    expect(child.output).toMatch(
      /ConnectionStrings:redis: is required in Production when ConnectionStrings:eventhubs is set/,
    );
  });
});
