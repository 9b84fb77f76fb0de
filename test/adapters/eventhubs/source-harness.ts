import type { CheckpointStore } from '../../../src/realtime/checkpoint-store.js';
import { EventHubsSource, type EventHubsSourceOptions } from '../../../src/adapters/eventhubs/eventhubs-source.js';
import { CollectingSink } from './collecting-sink.js';
import { TestLogger } from './test-logger.js';

/** Load balancing fast enough for tests: the SDK default loop is 10 s. */
export const FAST_BALANCING = { updateIntervalInMs: 100, partitionOwnershipExpirationIntervalInMs: 3000 };

export interface RunningSource {
  source: EventHubsSource;
  sink: CollectingSink;
  logger: TestLogger;
  /** Aborts the run and waits until it resolved; safe to call twice. */
  stop(): Promise<void>;
}

/** Starts an EventHubsSource on a fresh sink; `track` receives the stop so tests always clean up. */
export function runSource(
  connectionString: string,
  checkpointStore: CheckpointStore,
  track: (stop: () => Promise<void>) => void,
  options: Partial<EventHubsSourceOptions> = {},
): RunningSource {
  const sink = new CollectingSink();
  const logger = new TestLogger();
  const source = new EventHubsSource({
    connectionString,
    checkpointStore,
    // The test producers name devices in `deviceId`, as trusted senders to a plain event hub would.
    tenancy: { tenant: 'acme', deviceTenants: new Map(), trustSenderDeviceId: true },
    logger,
    maxWaitTimeInSeconds: 0.2,
    loadBalancingOptions: FAST_BALANCING,
    ...options,
  });
  const controller = new AbortController();
  const done = source.run(sink, controller.signal);
  const stop = async (): Promise<void> => {
    controller.abort();
    await done;
  };
  track(stop);
  return { source, sink, logger, stop };
}
