import type { DropReason } from './drop-reason.js';

/**
 * The ingestion seam. A source runs until its signal aborts, handing every raw message to the sink.
 * Sources know transports (MQTT, Event Hubs); they never validate, throttle or touch the hub.
 */
export interface RawReading {
  tenantId: string | undefined;
  deviceId: string | undefined;
  /** The message body exactly as received. */
  payload: Uint8Array;
  /** W3C traceparent carried by the transport (MQTT 5 user property, Event Hubs application property). */
  traceparent?: string;
  /**
   * A number the transport assigns that increases per device whichever instance reads it and
   * across restarts (Event Hubs: the partition's sequence number + 1, since a device's events share
   * a partition). It becomes the reading's `seq`; one at or below the device's last `seq` is a
   * repeated delivery and is dropped. Unset: the hub counts `seq` itself.
   */
  sequence?: number;
}

/** What a sink says about one raw reading; sources use it only for metrics and acks. */
export type SinkResult = { accepted: true } | { accepted: false; reason: string };

export interface ReadingSink {
  /** Synchronous so a source can never interleave a reading with another of the same device. */
  offer(raw: RawReading): SinkResult;
  /** A message the transport refused before it became a reading; counted and logged with the drops. */
  refused?(reason: DropReason, raw: RawReading): void;
}

export interface IngestionSource {
  /** A short name for logs and health checks, e.g. `mqtt`. */
  readonly name: string;
  /** Runs until `signal` aborts; resolves after in-flight messages were handed to the sink. */
  run(sink: ReadingSink, signal: AbortSignal): Promise<void>;
  /** True while the source is connected to its broker (readiness). */
  readonly connected: boolean;
}
