import {
  EventHubConsumerClient,
  earliestEventPosition,
  type CheckpointStore,
  type LoadBalancingOptions,
  type PartitionContext,
  type ReceivedEventData,
} from '@azure/event-hubs';
import { untilReady, type IngestionSource, type ReadingSink } from '../../realtime/ingestion-source.js';
import { eventToRawReading } from '../../wire/eventhubs/event-to-raw-reading.js';
import type { EventTenancy } from '../../wire/eventhubs/event-tenancy.js';
import { whenAborted } from '../../host/lifecycle/when-aborted.js';

const DEFAULT_BATCH = 100;

/** The logging the source needs; a pino logger fits. Object first, constant lowercase message. */
export interface EventHubsSourceLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface EventHubsSourceOptions {
  /** Event Hubs or IoT Hub built-in endpoint connection string (`ConnectionStrings:eventhubs`). */
  connectionString: string;
  /** Hub name when the connection string has no `EntityPath` (`Ingestion:EventHubs:Name`). */
  eventHubName?: string;
  /** Default `$Default` (`Ingestion:EventHubs:ConsumerGroup`). */
  consumerGroup?: string;
  /** Shared by every instance of the hub: partitions are balanced through it and resume from it. */
  checkpointStore: CheckpointStore;
  /** The device and tenant of each event (`Ingestion:EventHubs:Tenant`, `…:DeviceTenants`, `…:TrustSenderDeviceId`). */
  tenancy: EventTenancy;
  logger: EventHubsSourceLogger;
  /** Events per batch handed to the sink and checkpointed together. Default 100. */
  maxBatchSize?: number;
  /** How long a partition waits to fill a batch, seconds. Default 1. */
  maxWaitTimeInSeconds?: number;
  /** The SDK's load-balancing loop; its defaults (10 s loop, 60 s ownership expiry) suit production. */
  loadBalancingOptions?: LoadBalancingOptions;
  /** Owner id of this instance in the checkpoint store. Default: random per client. */
  identifier?: string;
}

/**
 * Reads every partition this instance owns, from its checkpoint or else the earliest event, and hands
 * each event to the sink; partitions are spread over all instances sharing the checkpoint store. A batch
 * is checkpointed only after it was handed over, so a restart repeats at most the batch in flight and
 * never skips one. The events a new owner reads within a batch of the checkpoint are marked
 * `redelivered`: the sink recognises the ones the previous owner accepted (docs/ingestion.md).
 */
export class EventHubsSource implements IngestionSource {
  readonly name = 'eventhubs';
  private isConnected = false;
  /**
   * Per partition this instance owns: the sequence number it began reading at after claiming it.
   * The previous owner may have accepted up to a batch from there without checkpointing it.
   */
  private readonly resumedAt = new Map<string, number>();

  constructor(private readonly options: EventHubsSourceOptions) {}

  /** True once the hub answered or a partition delivered, until an error other than a lost partition. */
  get connected(): boolean {
    return this.isConnected;
  }

  async run(sink: ReadingSink, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    this.resumedAt.clear();
    const { logger } = this.options;
    const client = this.createClient();
    const inFlight = new Set<Promise<void>>();
    const subscription = client.subscribe(
      {
        processInitialize: async (context) => {
          this.resumedAt.delete(context.partitionId);
          logger.info({ partitionId: context.partitionId }, 'partition claimed');
        },
        processEvents: (events, context) => track(inFlight, this.handOver(events, context, sink, signal)),
        processError: async (error, context) => this.onError(error, context),
        processClose: async (reason, context) => {
          this.resumedAt.delete(context.partitionId);
          logger.info({ partitionId: context.partitionId, reason }, 'partition released');
        },
      },
      {
        maxBatchSize: this.options.maxBatchSize ?? DEFAULT_BATCH,
        maxWaitTimeInSeconds: this.options.maxWaitTimeInSeconds ?? 1,
        startPosition: earliestEventPosition,
        // The sink validates the bytes exactly as sent; the SDK would otherwise JSON.parse them.
        skipParsingBodyAsJson: true,
      },
    );
    client.getEventHubProperties({ abortSignal: signal }).then(
      (hub) => {
        this.isConnected = true;
        logger.info(
          { eventHubName: hub.name, partitions: hub.partitionIds.length, ownerId: client.identifier },
          'eventhubs connected',
        );
      },
      (error: unknown) => this.onError(error, undefined),
    );
    await whenAborted(signal);
    try {
      // Batches handed over are checkpointed before the partitions are released: written after the
      // next owner began reading, such a checkpoint could overwrite a newer one of that owner.
      await Promise.allSettled(inFlight);
      await subscription.close();
      await Promise.allSettled(inFlight);
    } finally {
      this.isConnected = false;
      await client.close();
    }
  }

  private createClient(): EventHubConsumerClient {
    const { connectionString, eventHubName, checkpointStore, loadBalancingOptions, identifier } = this.options;
    const consumerGroup = this.options.consumerGroup ?? '$Default';
    const clientOptions = { ...(loadBalancingOptions && { loadBalancingOptions }), ...(identifier && { identifier }) };
    // The SDK tells its overloads apart by argument type, so an undefined hub name must not be passed.
    return eventHubName === undefined
      ? new EventHubConsumerClient(consumerGroup, connectionString, checkpointStore, clientOptions)
      : new EventHubConsumerClient(consumerGroup, connectionString, eventHubName, checkpointStore, clientOptions);
  }

  private async handOver(
    events: ReceivedEventData[],
    context: PartitionContext,
    sink: ReadingSink,
    signal: AbortSignal,
  ): Promise<void> {
    // Received but not checkpointed while stopping: the next owner reads them again, nothing is lost.
    if (signal.aborted) return;
    this.isConnected = true;
    const last = events[events.length - 1];
    if (!last) return;
    const resumedAt = this.resumedAt.get(context.partitionId) ?? events[0]!.sequenceNumber;
    this.resumedAt.set(context.partitionId, resumedAt);
    const maybeAcceptedBelow = resumedAt + (this.options.maxBatchSize ?? DEFAULT_BATCH);
    for (const event of events) {
      // The checkpoint acknowledges the batch: wait for room in the history writer first, so no
      // checkpointed reading is refused (a stop while waiting leaves the batch to the next owner).
      if (sink.ready?.() !== undefined && !(await untilReady(sink, signal))) return;
      try {
        const { raw, refused } = eventToRawReading(event, this.options.tenancy);
        // Read again after the partition moved: the sink asks whether the cluster accepted it already.
        if (event.sequenceNumber < maybeAcceptedBelow) raw.redelivered = true;
        if (refused === undefined) sink.offer(raw);
        else sink.refused?.(refused, raw);
      } catch (error) {
        // The sink counts bad readings itself; a throw is a bug that must not stall the partition.
        this.options.logger.warn(
          { err: error, partitionId: context.partitionId, sequenceNumber: event.sequenceNumber },
          'sink threw',
        );
      }
    }
    try {
      await context.updateCheckpoint(last);
    } catch (error) {
      // Rethrowing would stop this partition's pump; the next batch's checkpoint covers this one.
      this.options.logger.warn({ err: error, partitionId: context.partitionId }, 'checkpoint failed');
    }
  }

  private onError(error: unknown, context: PartitionContext | undefined): void {
    const { name, code } = (error ?? {}) as { name?: string; code?: string };
    if (name === 'AbortError') return;
    const partitionId = context?.partitionId || undefined;
    // Another instance took the partition over (epoch): load balancing at work, not a fault.
    if (code === 'ReceiverDisconnectedError') {
      this.options.logger.info({ partitionId }, 'partition taken over');
      return;
    }
    this.isConnected = false;
    this.options.logger.warn({ err: error, partitionId }, 'eventhubs error');
  }
}

function track(inFlight: Set<Promise<void>>, work: Promise<void>): Promise<void> {
  inFlight.add(work);
  return work.finally(() => inFlight.delete(work));
}
