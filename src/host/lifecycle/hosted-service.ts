/**
 * A service whose lifetime the host owns. Started in registration order, stopped in reverse.
 * `stop` receives a signal that aborts when the shutdown timeout expires: past it, the host
 * abandons the service and moves on.
 */
export interface HostedService {
  readonly name: string;
  start(signal: AbortSignal): Promise<void>;
  stop(signal: AbortSignal): Promise<void>;
}

/**
 * A long-running service: `execute` starts with `start` and runs until its stopping signal
 * aborts (when the host stops this service). A failure of `execute` stops the host.
 */
export abstract class BackgroundService implements HostedService {
  abstract readonly name: string;
  #controller: AbortController | undefined;
  #running: Promise<void> | undefined;
  /** Set by the host: called when execute fails, so the application stops instead of limping on. */
  onFailure: ((error: unknown) => void) | undefined;

  protected abstract execute(stopping: AbortSignal): Promise<void>;

  async start(_signal: AbortSignal): Promise<void> {
    this.#controller = new AbortController();
    const stopping = this.#controller.signal;
    this.#running = Promise.resolve()
      .then(() => this.execute(stopping))
      .catch((error: unknown) => {
        if (!stopping.aborted) this.onFailure?.(error);
      });
  }

  async stop(signal: AbortSignal): Promise<void> {
    this.#controller?.abort();
    if (!this.#running) return;
    await new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      signal.addEventListener('abort', () => resolve(), { once: true });
      this.#running!.then(resolve, resolve);
    });
  }
}
