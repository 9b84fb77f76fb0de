import { BackgroundService, type HostedService } from '../../../src/host/lifecycle/hosted-service.js';

/** A hosted service that writes what happens to it into a shared trace. */
export function recordingService(
  name: string,
  trace: string[],
  options: { failStart?: boolean; hangStop?: boolean } = {},
): HostedService & { stopSignal?: AbortSignal } {
  const service: HostedService & { stopSignal?: AbortSignal } = {
    name,
    async start() {
      if (options.failStart) throw new Error(`${name} cannot connect`);
      trace.push(`start ${name}`);
    },
    stop(signal) {
      service.stopSignal = signal;
      trace.push(`stop ${name}`);
      if (options.hangStop) {
        signal.addEventListener('abort', () => trace.push(`${name} saw its stop signal abort`));
        return new Promise<void>(() => undefined);
      }
      return Promise.resolve();
    },
  };
  return service;
}

/** A background service whose execute runs until its stopping signal aborts (or fails on demand). */
export class RecordingWorker extends BackgroundService {
  fail: (error: Error) => void = () => undefined;

  constructor(
    readonly name: string,
    private readonly trace: string[],
  ) {
    super();
  }

  protected execute(stopping: AbortSignal): Promise<void> {
    this.trace.push(`execute ${this.name}`);
    return new Promise((resolve, reject) => {
      this.fail = reject;
      stopping.addEventListener('abort', () => {
        this.trace.push(`${this.name} saw stopping`);
        resolve();
      });
    });
  }
}
