import { app, type EventHubHandler } from '@azure/functions';
import type { WebPubSubServiceClient } from '@azure/web-pubsub';
import type { EventTenancy } from '../../../src/wire/eventhubs/event-tenancy.js';
import { eventsOfBatch } from '../azure/event-hub-batch.js';
import { serviceFromSettings } from '../azure/service-from-settings.js';
import { runInInvocationTrace } from '../azure/invocation-trace.js';
import { handleTelemetryBatch, TelemetryDeliveryError } from '../handlers/telemetry-to-groups.js';
import { readEventTenancy } from '../settings/event-tenancy-settings.js';
import { FunctionSettingsError } from '../settings/function-settings.js';

/**
 * Event Hubs / IoT Hub built-in endpoint → every valid reading of the batch to its device group, through
 * the management API (`WebPubSubConnectionString`, `WebPubSubHub`), the tenant from `EventHubTenant` /
 * `EventHubDeviceTenants`. Bad events are counted and skipped.
 */
export const telemetryToGroups: EventHubHandler = async (messages, context) => {
  let service: WebPubSubServiceClient;
  let tenancy: EventTenancy;
  try {
    service = serviceFromSettings(process.env);
    tenancy = readEventTenancy(process.env);
  } catch (err) {
    context.error(err instanceof FunctionSettingsError ? err.message : 'function app settings could not be read');
    // Failing the invocation makes the misconfiguration visible in the function's monitoring.
    throw new Error('the function app is not configured; see its log');
  }
  const log = { warn: (obj: object, msg: string) => context.warn(msg, obj) };
  try {
    const outcome = await runInInvocationTrace(context, () =>
      handleTelemetryBatch(eventsOfBatch(messages, context.triggerMetadata), { service, tenancy, now: Date.now, log }),
    );
    context.debug('telemetry batch', { received: outcome.received, sent: outcome.sent, failed: outcome.failed });
  } catch (err) {
    // A reading did not reach the service: fail the invocation so the retry policy redoes the batch.
    if (err instanceof TelemetryDeliveryError) throw err;
    context.error('unhandled exception', err);
    throw new Error('telemetry batch failed; see the log');
  }
};

app.eventHub('telemetryToGroups', {
  connection: 'EventHubConnection',
  eventHubName: '%EventHubName%',
  // A dedicated consumer group: the hub's own Event Hubs source reads `$Default` unless configured otherwise.
  consumerGroup: '%EventHubConsumerGroup%',
  cardinality: 'many',
  // A batch with any failed send is failed and retried whole; what went out the first time comes again
  // with the same seq, and the hub's group send and the subscribers drop it as a repeat.
  retry: {
    strategy: 'exponentialBackoff',
    maxRetryCount: 3,
    minimumInterval: { seconds: 2 },
    maximumInterval: { seconds: 30 },
  },
  handler: telemetryToGroups,
});
