import { EventHubConsumerClient, earliestEventPosition, type ReceivedEventData } from '@azure/event-hubs';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createEventHubsPublisher } from '../../../src/adapters/eventhubs/eventhubs-publisher.js';
import { start, type EventHubsPeer } from '../../support/eventhubs-peer/eventhubs-peer.js';
import { waitFor } from './wait-for.js';

let peer: EventHubsPeer;
beforeEach(async () => {
  peer = await start({ hubName: 'telemetry', partitionCount: 4 });
});
afterEach(async () => peer.close());

/** Reads everything in the hub with the plain SDK consumer, to see exactly what the publisher sent. */
async function readAll(expected: number): Promise<ReceivedEventData[]> {
  const client = new EventHubConsumerClient('$Default', peer.connectionString);
  const events: ReceivedEventData[] = [];
  const subscription = client.subscribe(
    { processEvents: async (batch) => void events.push(...batch), processError: async () => {} },
    { startPosition: earliestEventPosition, maxWaitTimeInSeconds: 0.2, maxBatchSize: 500, skipParsingBodyAsJson: true },
  );
  try {
    await waitFor(`${expected} events`, () => events.length >= expected);
  } finally {
    await subscription.close();
    await client.close();
  }
  return events;
}

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

it('keeps up with 1000 readings a second, keyed by device and in order per device', async () => {
  const publisher = createEventHubsPublisher(peer.connectionString);
  const started = Date.now();
  const sends: Promise<void>[] = [];
  for (let n = 0; n < 1000; n++) {
    sends.push(publisher.publish('acme', `dev-${n % 250}`, { n }, n % 3 === 0 ? TRACEPARENT : undefined));
    // A simulator's pace: 100 readings every 100 ms.
    if (n % 100 === 99) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await Promise.all(sends);
  // One reading per device per batch here, so this is about 1000 sends a second; 3x margin for busy CI.
  expect(Date.now() - started).toBeLessThan(3000);
  await publisher.close();

  expect(peer.sentCount).toBe(1000);
  const events = await readAll(1000);
  const lastByDevice = new Map<string, number>();
  for (const event of events) {
    const body = JSON.parse(Buffer.from(event.body as Uint8Array).toString('utf8')) as { n: number };
    const deviceId = `dev-${body.n % 250}`;
    expect(event.partitionKey).toBe(deviceId);
    expect(event.contentType).toBe('application/json');
    expect(event.properties).toEqual({
      tenant_id: 'acme',
      deviceId,
      ...(body.n % 3 === 0 && { traceparent: TRACEPARENT }),
    });
    expect(body.n).toBeGreaterThan(lastByDevice.get(deviceId) ?? -1);
    lastByDevice.set(deviceId, body.n);
  }
});

it("batches a device's readings that arrive within the linger time", async () => {
  const publisher = createEventHubsPublisher(peer.connectionString);
  await Promise.all(Array.from({ length: 500 }, (_, n) => publisher.publish('acme', `dev-${n % 5}`, { n })));
  await publisher.close();
  expect(peer.sentCount).toBe(500);
  // 100 pending readings trigger a send: 5 devices, about 20 readings per batch.
  expect(peer.transferCount).toBeLessThanOrEqual(50);
});

it('takes the hub name separately when the connection string has no EntityPath', async () => {
  const withoutEntity = peer.connectionString.replace('EntityPath=telemetry;', '');
  const publisher = createEventHubsPublisher(withoutEntity, 'telemetry');
  await publisher.publish('acme', 'dev-1', { n: 1 });
  await publisher.close();
  expect(peer.sentCount).toBe(1);
});

it('sends what is pending on close and refuses readings after it', async () => {
  const publisher = createEventHubsPublisher(peer.connectionString, undefined, { lingerMs: 60_000 });
  const pending = publisher.publish('acme', 'dev-1', { n: 1 });
  await publisher.close();
  await pending;
  expect(peer.sentCount).toBe(1);
  await expect(publisher.publish('acme', 'dev-1', { n: 2 })).rejects.toThrow('closed');
});

it('rejects a reading too large for any batch without failing the others', async () => {
  const publisher = createEventHubsPublisher(peer.connectionString);
  const huge = publisher.publish('acme', 'dev-1', { blob: 'x'.repeat(2 * 1024 * 1024) });
  const fine = publisher.publish('acme', 'dev-1', { n: 1 });
  await expect(huge).rejects.toThrow(RangeError);
  await fine;
  await publisher.close();
  expect(peer.sentCount).toBe(1);
});
