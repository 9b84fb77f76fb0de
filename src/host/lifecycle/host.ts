import type { Logger } from 'pino';
import { ApplicationLifetime } from './application-lifetime.js';
import { BackgroundService, type HostedService } from './hosted-service.js';

export type HostState = 'stopped' | 'starting' | 'serving' | 'stopping';

/** A hosted service failed to start; the services started before it were stopped again. */
export class HostStartError extends Error {
  constructor(
    readonly service: string,
    override readonly cause: unknown,
  ) {
    super(`hosted service '${service}' failed to start: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'HostStartError';
  }
}

export interface StopResult {
  /** Services still stopping when the shutdown timeout expired. */
  abandoned: string[];
  /** Why the host stopped, when it was not a plain stop request (e.g. a background service failed). */
  failure: unknown;
}

/**
 * The host lifecycle of the spec: stopped → starting → serving → stopping → stopped.
 * Register the HTTP server last: it starts last and stops first.
 */
export class Host {
  readonly lifetime = new ApplicationLifetime();
  readonly #services: HostedService[] = [];
  readonly #log: Logger;
  readonly #shutdownTimeoutMs: number;
  #state: HostState = 'stopped';
  #started: HostedService[] = [];
  #stopping: Promise<StopResult> | undefined;
  #failure: unknown;

  constructor(options: { logger: Logger; shutdownTimeoutMs: number }) {
    this.#log = options.logger;
    this.#shutdownTimeoutMs = options.shutdownTimeoutMs;
    this.lifetime.bindStop(() => void this.stop());
  }

  get state(): HostState {
    return this.#state;
  }

  add(service: HostedService): this {
    if (this.#state !== 'stopped') throw new Error('services are registered before the host starts');
    if (service instanceof BackgroundService) {
      service.onFailure = (error) => {
        this.#log.error({ err: error, service: service.name }, 'background service failed');
        this.#failure ??= error;
        void this.stop();
      };
    }
    this.#services.push(service);
    return this;
  }

  /** Starts every service in registration order; on a failure, stops those started and throws. */
  async start(): Promise<void> {
    if (this.#state !== 'stopped') throw new Error(`cannot start a host that is ${this.#state}`);
    this.#state = 'starting';
    const startup = new AbortController();
    for (const service of this.#services) {
      try {
        await service.start(startup.signal);
        this.#started.push(service);
        this.#log.debug({ service: service.name }, 'service started');
      } catch (error) {
        this.#log.error({ err: error, service: service.name }, 'service failed to start');
        await this.#stopServices();
        this.#state = 'stopped';
        throw new HostStartError(service.name, error);
      }
    }
    this.#state = 'serving';
    await this.lifetime.raiseStarted();
  }

  /** Idempotent: every caller gets the same outcome. */
  stop(): Promise<StopResult> {
    this.#stopping ??= this.#stop();
    return this.#stopping;
  }

  async #stop(): Promise<StopResult> {
    if (this.#state === 'starting') {
      // A stop during start waits for start to settle so no service is left half started.
      await new Promise<void>((resolve) => this.lifetime.onStarted(resolve));
    }
    this.#state = 'stopping';
    const abandoned = await this.#stopServices(async () => {
      this.#log.info('application stopping');
      await this.lifetime.raiseStopping();
    });
    this.#state = 'stopped';
    await this.lifetime.raiseStopped();
    this.#log.info({ abandoned }, 'application stopped');
    return { abandoned, failure: this.#failure };
  }

  /** Stops started services in reverse order within the shutdown timeout; returns the abandoned ones. */
  async #stopServices(beforeStop?: () => Promise<void>): Promise<string[]> {
    // A referenced timer, not AbortSignal.timeout (unreferenced): when the only thing left is a
    // stop that never settles, the process must still wait for the deadline and report it.
    const controller = new AbortController();
    const deadline = controller.signal;
    const timer = setTimeout(() => controller.abort(), this.#shutdownTimeoutMs);
    try {
      return await this.#stopWithin(deadline, beforeStop);
    } finally {
      clearTimeout(timer);
    }
  }

  async #stopWithin(deadline: AbortSignal, beforeStop?: () => Promise<void>): Promise<string[]> {
    const expired = new Promise<'expired'>((resolve) => {
      if (deadline.aborted) resolve('expired');
      deadline.addEventListener('abort', () => resolve('expired'), { once: true });
    });
    if (beforeStop && (await Promise.race([beforeStop().then(() => 'done' as const), expired])) === 'expired') {
      const names = [...this.#started].reverse().map((s) => s.name);
      this.#log.error(
        { abandoned: names, timeoutMs: this.#shutdownTimeoutMs },
        'shutdown timeout expired; abandoning work',
      );
      return names;
    }
    const pending = [...this.#started].reverse();
    this.#started = [];
    while (pending.length > 0) {
      const service = pending[0]!;
      const outcome = await Promise.race([
        service.stop(deadline).then(
          () => 'stopped' as const,
          (error: unknown) => {
            this.#log.error({ err: error, service: service.name }, 'service failed to stop');
            return 'stopped' as const;
          },
        ),
        expired,
      ]);
      if (outcome === 'expired') {
        const names = pending.map((s) => s.name);
        this.#log.error(
          { abandoned: names, timeoutMs: this.#shutdownTimeoutMs },
          'shutdown timeout expired; abandoning work',
        );
        return names;
      }
      pending.shift();
      this.#log.debug({ service: service.name }, 'service stopped');
    }
    return [];
  }
}
