import type { Logger } from 'pino';
import type { ApplicationLifetime } from '../host/lifecycle/application-lifetime.js';
import { BackgroundService } from '../host/lifecycle/hosted-service.js';
import type { ReadingPipeline } from './reading-pipeline.js';
import type { IngestionSource } from './ingestion-source.js';

/**
 * Runs the ingestion sources into the reading pipeline. When the application begins stopping it
 * stops taking readings first and delivers what it accepted (the throttle's pending readings),
 * before the server closes the subscribers' sockets.
 */
export class IngestionService extends BackgroundService {
  readonly name = 'ingestion';
  readonly #sources: readonly IngestionSource[];
  readonly #pipeline: ReadingPipeline;
  readonly #log: Logger;
  readonly #taking = new AbortController();
  #running: Promise<unknown> | undefined;

  constructor(options: {
    sources: readonly IngestionSource[];
    pipeline: ReadingPipeline;
    lifetime: ApplicationLifetime;
    log: Logger;
  }) {
    super();
    this.#sources = options.sources;
    this.#pipeline = options.pipeline;
    this.#log = options.log;
    options.lifetime.onStopping(() => this.#drain());
  }

  /** Ready when every source is connected to its broker. */
  get connected(): boolean {
    return this.#sources.every((s) => s.connected);
  }

  protected async execute(stopping: AbortSignal): Promise<void> {
    stopping.addEventListener('abort', () => this.#taking.abort(), { once: true });
    this.#running = Promise.all(this.#sources.map((s) => s.run(this.#pipeline, this.#taking.signal)));
    await this.#running;
    await this.#pipeline.settled();
    this.#pipeline.flush();
  }

  async #drain(): Promise<void> {
    this.#taking.abort();
    await this.#running;
    await this.#pipeline.settled();
    this.#pipeline.flush();
    this.#log.info({ stats: this.#pipeline.stats() }, 'ingestion stopped');
  }
}
