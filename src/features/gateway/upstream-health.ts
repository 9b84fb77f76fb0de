import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../host/clock.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import type { Stamp } from './stamps.js';

/** Asks one instance whether it is ready; resolves true for a 200 within the timeout. */
export type ReadinessProbe = (instance: string, timeoutMs: number) => Promise<boolean>;

/** GET `{instance}/health/ready`: ready means 200, anything else (503 while draining, no answer) is not. */
export const httpReadinessProbe: ReadinessProbe = async (instance, timeoutMs) => {
  try {
    const res = await fetch(`${instance}/health/ready`, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { 'cache-control': 'no-cache' },
    });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
};

/**
 * Which upstream instances are ready. Every instance's `/health/ready` is polled every `intervalMs`;
 * an instance is routed to only while its last answer was 200. A draining instance answers 503 from
 * its first moment of shutdown, so it leaves the rotation within one interval; a request that cannot
 * connect takes the instance out at once (`markDown`) until a poll finds it ready again.
 * Start-up waits for the first round, so the gateway never routes on guesses.
 */
export class UpstreamHealth implements HostedService {
  readonly name = 'upstream-health';
  readonly #stamps: ReadonlyMap<string, Stamp>;
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #probe: ReadinessProbe;
  readonly #ready = new Set<string>();
  #timer: TimerHandle | undefined;
  #stopped = false;
  #round: Promise<void> | undefined;

  constructor(options: {
    stamps: readonly Stamp[];
    intervalMs: number;
    timeoutMs: number;
    clock: Clock;
    log: Logger;
    probe?: ReadinessProbe;
  }) {
    this.#stamps = new Map(options.stamps.map((s) => [s.name, s]));
    this.#intervalMs = options.intervalMs;
    this.#timeoutMs = options.timeoutMs;
    this.#clock = options.clock;
    this.#log = options.log;
    this.#probe = options.probe ?? httpReadinessProbe;
  }

  /** Is the stamp known (configured)? */
  has(stamp: string): boolean {
    return this.#stamps.has(stamp);
  }

  /** The stamp's instances whose last poll said ready, in configured order. */
  readyInstances(stamp: string): string[] {
    return (this.#stamps.get(stamp)?.instances ?? []).filter((i) => this.#ready.has(i));
  }

  /** A request could not reach the instance: out of the rotation until a poll finds it ready. */
  markDown(instance: string): void {
    if (this.#ready.delete(instance)) this.#log.warn({ instance }, 'upstream unreachable; out of rotation');
  }

  /** Every instance with its state, for the gateway's own status page and logs. */
  snapshot(): { stamp: string; instance: string; ready: boolean }[] {
    return [...this.#stamps.values()].flatMap((s) =>
      s.instances.map((instance) => ({ stamp: s.name, instance, ready: this.#ready.has(instance) })),
    );
  }

  async start(): Promise<void> {
    this.#stopped = false;
    await this.pollOnce();
    this.#schedule();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    await this.#round;
  }

  /** One round over every instance (tests call it to skip the wait for the next interval). */
  pollOnce(): Promise<void> {
    this.#round ??= this.#poll().finally(() => (this.#round = undefined));
    return this.#round;
  }

  async #poll(): Promise<void> {
    const instances = [...new Set([...this.#stamps.values()].flatMap((s) => s.instances))];
    await Promise.all(
      instances.map(async (instance) => {
        const ready = await this.#probe(instance, this.#timeoutMs);
        const was = this.#ready.has(instance);
        if (ready) this.#ready.add(instance);
        else this.#ready.delete(instance);
        if (ready !== was) this.#log.info({ instance, ready }, ready ? 'upstream ready' : 'upstream not ready');
      }),
    );
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => void this.pollOnce().finally(() => this.#schedule()), this.#intervalMs);
    this.#timer.unref?.();
  }
}
