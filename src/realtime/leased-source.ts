import type { Logger } from 'pino';
import { HANDOVER } from '../host/lifecycle/handover.js';
import type { IngestionSource, ReadingSink, SinkResult } from './ingestion-source.js';
import type { IngestLease } from './ingest-lease.js';

/**
 * Runs a source only while this instance holds the ingest lease: started when the lease is
 * acquired, stopped (its connection closed, acknowledgements sent) when it is lost, started again
 * when it comes back. A standby is ready: it serves its clients what the ingester publishes.
 *
 * Every reading of a turn carries the turn's fencing token (`RawReading.fence`): the seq it gets
 * and the writes made for it are refused in Redis once a successor holds the lease. A reading
 * that arrives after this instance's holding ended (its lease ran out while it stalled) is refused
 * here already, with reason `fenced`.
 */
export class LeasedSource implements IngestionSource {
  readonly name: string;
  readonly #source: IngestionSource;
  readonly #lease: IngestLease;
  readonly #log: Logger;

  constructor(source: IngestionSource, lease: IngestLease, log: Logger) {
    this.#source = source;
    this.#lease = lease;
    this.#log = log;
    this.name = source.name;
  }

  get connected(): boolean {
    return !this.#lease.held || this.#source.connected;
  }

  async run(sink: ReadingSink, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await held(this.#lease, signal);
      if (signal.aborted) return;
      const turn = new AbortController();
      let ran: Promise<void> = Promise.resolve();
      // The lease waits for the source to stop (acknowledgements sent, connection closed) before
      // it frees itself for another instance, when it is handed on.
      const stopOnLoss = this.#lease.onChange((isHeld) => {
        if (isHeld) return;
        turn.abort(HANDOVER);
        return ran.then(
          () => undefined,
          () => undefined,
        );
      });
      const stopOnAbort = () => turn.abort(signal.reason);
      signal.addEventListener('abort', stopOnAbort, { once: true });
      try {
        const fence = this.#lease.fence;
        this.#log.info({ source: this.name, fence }, 'ingesting');
        ran = this.#source.run(fenced(sink, this.#lease, fence), turn.signal);
        await ran;
      } finally {
        stopOnLoss();
        signal.removeEventListener('abort', stopOnAbort);
      }
      if (!signal.aborted) this.#log.info({ source: this.name }, 'standing by: another instance ingests');
    }
  }
}

const FENCED: SinkResult = Object.freeze({ accepted: false, reason: 'fenced' });

/** The sink of one holding: its readings carry `fence`, and none passes once the holding ended. */
function fenced(sink: ReadingSink, lease: IngestLease, fence: number | undefined): ReadingSink {
  return {
    offer: (raw) => {
      if (lease.fence !== fence || fence === undefined) {
        sink.refused?.('fenced', raw);
        return FENCED;
      }
      raw.fence = fence;
      return sink.offer(raw);
    },
    ...(sink.refused ? { refused: sink.refused.bind(sink) } : {}),
    // Without it a lease holder's broker connection would not wait for room in the history writer.
    ...(sink.ready ? { ready: sink.ready.bind(sink) } : {}),
  };
}

/** Resolves once the lease is held or `signal` aborts. */
function held(lease: IngestLease, signal: AbortSignal): Promise<void> {
  if (lease.held || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stop();
      signal.removeEventListener('abort', done);
      resolve();
    };
    const stop = lease.onChange((isHeld) => {
      if (isHeld) done();
    });
    signal.addEventListener('abort', done, { once: true });
  });
}
