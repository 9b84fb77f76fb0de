import type { IngestionSource, ReadingSink } from '../../realtime/ingestion-source.js';
import type { RawReading } from '../../wire/raw-reading.js';
import { whenAborted } from '../../host/lifecycle/when-aborted.js';

/**
 * An ingestion source fed from this process (`publish`), for hub and pipeline tests and the bench
 * harness. It behaves as a broker-backed source does: readings are handed over asynchronously, in
 * publish order; readings published while it is not running wait for the next run (a persistent
 * session); an abort hands over what was already published, then `run` resolves.
 */
export class MemorySource implements IngestionSource {
  readonly name: string;
  #queue: RawReading[] = [];
  #sink: ReadingSink | undefined = undefined;
  #scheduled = false;

  constructor(name = 'memory') {
    this.name = name;
  }

  get connected(): boolean {
    return this.#sink !== undefined;
  }

  /** Readings published and not yet handed to a sink. */
  get backlog(): number {
    return this.#queue.length;
  }

  publish(raw: RawReading): void {
    this.#queue.push(raw);
    this.#schedule();
  }

  async run(sink: ReadingSink, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    if (this.#sink !== undefined) throw new Error(`source ${this.name} is already running`);
    this.#sink = sink;
    this.#schedule();
    await whenAborted(signal);
    this.#handOver();
    this.#sink = undefined;
  }

  #schedule(): void {
    if (this.#scheduled || this.#sink === undefined) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.#handOver();
    });
  }

  #handOver(): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    const queue = this.#queue;
    this.#queue = [];
    for (const raw of queue) sink.offer(raw);
  }
}
