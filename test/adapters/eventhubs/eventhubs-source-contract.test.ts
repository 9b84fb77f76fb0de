import { EventHubProducerClient } from '@azure/event-hubs';
import { MemoryCheckpointStore } from '../../../src/adapters/memory/memory-checkpoint-store.js';
import { EventHubsSource } from '../../../src/adapters/eventhubs/eventhubs-source.js';
import { runIngestionSourceContract } from '../../realtime/ingestion-source.case.js';
import { start } from '../../support/eventhubs-peer/eventhubs-peer.js';
import { FAST_BALANCING } from './source-harness.js';
import { TestLogger } from './test-logger.js';

/**
 * The source against the Event Hubs service double: devices publish with the SDK's producer, as
 * IoT Hub or a device gateway would (partition key = device id, tenant and device as properties).
 */
runIngestionSourceContract('EventHubsSource', async () => {
  const peer = await start({ hubName: 'telemetry', partitionCount: 2 });
  // The tenant is configuration (device → tenant), never a property the device sets: each device
  // the test publishes for is mapped to its tenant before its first event.
  const deviceTenants = new Map<string, string>();
  const source = new EventHubsSource({
    connectionString: peer.connectionString,
    checkpointStore: new MemoryCheckpointStore(),
    logger: new TestLogger(),
    maxWaitTimeInSeconds: 0.2,
    loadBalancingOptions: FAST_BALANCING,
    // The producer names the device in `deviceId`, as a trusted bridge to a plain event hub would.
    tenancy: { tenant: undefined, deviceTenants, trustSenderDeviceId: true },
  });
  const producer = new EventHubProducerClient(peer.connectionString);
  return {
    source,
    async publish(tenantId, deviceId, payload, traceparent) {
      deviceTenants.set(deviceId, tenantId);
      const properties: Record<string, string> = { deviceId };
      if (traceparent !== undefined) properties.traceparent = traceparent;
      await producer.sendBatch([{ body: Buffer.from(payload), properties }], { partitionKey: deviceId });
    },
    carriesTraceparent: true,
    async dispose() {
      await producer.close();
      await peer.close();
    },
  };
});
