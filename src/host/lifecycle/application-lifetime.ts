type Callback = () => void | Promise<void>;

/**
 * The three application events of the host lifecycle. Callbacks registered after an event was
 * raised run at once, so late subscribers never miss it.
 */
export class ApplicationLifetime {
  readonly #started: Callback[] = [];
  readonly #stopping: Callback[] = [];
  readonly #stopped: Callback[] = [];
  readonly #stoppingController = new AbortController();
  #hasStarted = false;
  #hasStopped = false;
  #requestStop: (() => void) | undefined;

  /** Aborts when ApplicationStopping is raised. */
  get stoppingSignal(): AbortSignal {
    return this.#stoppingController.signal;
  }

  get isStopping(): boolean {
    return this.#stoppingController.signal.aborted;
  }

  onStarted(fn: Callback): void {
    if (this.#hasStarted) void fn();
    else this.#started.push(fn);
  }

  onStopping(fn: Callback): void {
    if (this.isStopping) void fn();
    else this.#stopping.push(fn);
  }

  onStopped(fn: Callback): void {
    if (this.#hasStopped) void fn();
    else this.#stopped.push(fn);
  }

  /** Asks the host to stop, as a signal would (e.g. a background service failed). */
  stopApplication(): void {
    this.#requestStop?.();
  }

  /** @internal the host wires these. */
  bindStop(fn: () => void): void {
    this.#requestStop = fn;
  }

  /** @internal */
  async raiseStarted(): Promise<void> {
    this.#hasStarted = true;
    await runAll(this.#started);
  }

  /** @internal */
  async raiseStopping(): Promise<void> {
    this.#stoppingController.abort();
    await runAll(this.#stopping);
  }

  /** @internal */
  async raiseStopped(): Promise<void> {
    this.#hasStopped = true;
    await runAll(this.#stopped);
  }
}

async function runAll(callbacks: Callback[]): Promise<void> {
  // One failing callback must not keep the others from running.
  await Promise.allSettled(callbacks.map((fn) => Promise.resolve().then(fn)));
}
