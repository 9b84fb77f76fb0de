import type { Logger } from 'pino';
import type { IngestionSource, ReadingSink } from '../ingest/source.js';
import type { IngestLease } from './ingest-lease.js';

/**
 * Runs a source only while this instance holds the ingest lease: started when the lease is
 * acquired, stopped (its connection closed, acknowledgements sent) when it is lost, started again
 * when it comes back. A standby is ready: it serves its clients what the ingester publishes.
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
      const stopOnLoss = this.#lease.onChange((isHeld) => {
        if (!isHeld) turn.abort();
      });
      const stopOnAbort = () => turn.abort();
      signal.addEventListener('abort', stopOnAbort, { once: true });
      try {
        this.#log.info({ source: this.name }, 'ingesting');
        await this.#source.run(sink, turn.signal);
      } finally {
        stopOnLoss();
        signal.removeEventListener('abort', stopOnAbort);
      }
      if (!signal.aborted) this.#log.info({ source: this.name }, 'standing by: another instance ingests');
    }
  }
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
