import type { DropReason } from '../wire/drop-reason.js';
import type { RawReading } from '../wire/raw-reading.js';

/**
 * The ingestion seam. A source runs until its signal aborts, handing every raw message to the sink.
 * Sources know transports (MQTT, Event Hubs); they never validate, throttle or touch the hub.
 */
/**
 * What a sink says about one raw reading; sources use it only for metrics and acks. `settled`: the
 * reading was taken but its outcome is still pending (its `seq`, or the cluster's redelivery window,
 * is being asked); it resolves to the final answer, which may still refuse it (`fenced`). A source
 * that acknowledges readings acknowledges such a one only once settled and accepted.
 */
export type SinkResult = { accepted: true; settled?: Promise<SinkResult> } | { accepted: false; reason: string };

export interface ReadingSink {
  /** Synchronous so a source can never interleave a reading with another of the same device. */
  offer(raw: RawReading): SinkResult;
  /** A message the transport refused before it became a reading; counted and logged with the drops. */
  refused?(reason: DropReason, raw: RawReading): void;
  /**
   * Undefined when the sink can take a reading now, else a promise to wait on before asking again
   * (the history writer is full). A source that acknowledges readings (MQTT QoS 1 PUBACK, an Event
   * Hubs checkpoint) waits until undefined, then offers in the same turn, and acknowledges only
   * after: the broker keeps what the hub cannot hold yet, and nothing acknowledged is refused.
   * Sources that acknowledge nothing (QoS 0) offer at once; a full writer refuses their readings.
   */
  ready?(): Promise<void> | undefined;
}

/** Waits until `sink` can take a reading now; false when `signal` aborted first. */
export async function untilReady(sink: ReadingSink, signal: AbortSignal): Promise<boolean> {
  for (let wait = sink.ready?.(); wait !== undefined; wait = sink.ready?.()) {
    if (signal.aborted) return false;
    await new Promise<void>((resolve) => {
      const onAbort = () => resolve();
      signal.addEventListener('abort', onAbort, { once: true });
      void wait!.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }
  return !signal.aborted;
}

export interface IngestionSource {
  /** A short name for logs and health checks, e.g. `mqtt`. */
  readonly name: string;
  /** Runs until `signal` aborts; resolves after in-flight messages were handed to the sink. */
  run(sink: ReadingSink, signal: AbortSignal): Promise<void>;
  /** True while the source is connected to its broker (readiness). */
  readonly connected: boolean;
}
