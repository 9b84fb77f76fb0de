import { EventHubProducerClient, type EventData } from '@azure/event-hubs';

export interface EventHubsPublisher {
  /** Resolves once the service accepted the batch the reading went out in. */
  publish(tenantId: string, deviceId: string, payload: Record<string, unknown>, traceparent?: string): Promise<void>;
  /** Sends what is pending, then closes the connection. */
  close(): Promise<void>;
}

export interface EventHubsPublisherOptions {
  /** How long a reading may wait for others to share its batch, ms. Default 10. */
  lingerMs?: number;
  /** Pending readings (all devices) that trigger a send before the linger time is up. Default 100. */
  maxPendingEvents?: number;
}

interface Pending {
  event: EventData;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Publishes simulator readings the way a device bridge would (contract "Device ingestion", Event Hubs):
 * JSON body, application properties `deviceId`, `traceparent` and `tenant_id` (the hub ignores the
 * last: its configuration names each device's tenant), partition key = device id
 * so a device's readings stay in order on one partition. A batch carries a single partition key, so
 * readings are grouped per device and flushed every `lingerMs` or at `maxPendingEvents`; sends for one
 * device are chained so batches cannot overtake each other.
 */
export function createEventHubsPublisher(
  connectionString: string,
  eventHubName?: string,
  options: EventHubsPublisherOptions = {},
): EventHubsPublisher {
  const lingerMs = options.lingerMs ?? 10;
  const maxPendingEvents = options.maxPendingEvents ?? 100;
  // The SDK tells its overloads apart by argument type, so an undefined hub name must not be passed.
  const producer =
    eventHubName === undefined
      ? new EventHubProducerClient(connectionString)
      : new EventHubProducerClient(connectionString, eventHubName);
  let pending = new Map<string, Pending[]>();
  let pendingCount = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const tails = new Map<string, Promise<void>>();

  function flush(): void {
    clearTimeout(timer);
    timer = undefined;
    const groups = pending;
    pending = new Map();
    pendingCount = 0;
    for (const [deviceId, items] of groups) {
      const tail = (tails.get(deviceId) ?? Promise.resolve()).then(() => sendDevice(deviceId, items));
      tails.set(deviceId, tail);
      void tail.finally(() => {
        if (tails.get(deviceId) === tail) tails.delete(deviceId);
      });
    }
  }

  async function sendDevice(partitionKey: string, items: Pending[]): Promise<void> {
    let settledUpTo = 0;
    try {
      let batch = await producer.createBatch({ partitionKey });
      let batchStart = 0;
      for (let i = 0; i < items.length; i++) {
        if (batch.tryAdd(items[i]!.event)) continue;
        if (i > batchStart) {
          await producer.sendBatch(batch);
          settle(items, batchStart, i);
          settledUpTo = i;
          batch = await producer.createBatch({ partitionKey });
          batchStart = i;
          if (batch.tryAdd(items[i]!.event)) continue;
        }
        items[i]!.reject(new RangeError(`reading of ${partitionKey} exceeds the maximum event size`));
        batchStart = settledUpTo = i + 1;
      }
      if (batch.count > 0) await producer.sendBatch(batch);
      settle(items, batchStart, items.length);
    } catch (error) {
      for (const item of items.slice(settledUpTo)) item.reject(error);
    }
  }

  return {
    publish(tenantId, deviceId, payload, traceparent) {
      if (closed) return Promise.reject(new Error('publisher is closed'));
      return new Promise<void>((resolve, reject) => {
        const properties: Record<string, string> = { tenant_id: tenantId, deviceId };
        if (traceparent !== undefined) properties.traceparent = traceparent;
        const items = pending.get(deviceId) ?? [];
        if (items.length === 0) pending.set(deviceId, items);
        items.push({ event: { body: payload, contentType: 'application/json', properties }, resolve, reject });
        if (++pendingCount >= maxPendingEvents) flush();
        else timer ??= setTimeout(flush, lingerMs);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      flush();
      await Promise.allSettled([...tails.values()]);
      await producer.close();
    },
  };
}

function settle(items: Pending[], from: number, to: number): void {
  for (let i = from; i < to; i++) items[i]!.resolve();
}
