import { systemClock, type Clock, type TimerHandle } from '../clock.js';

export type HealthStatus = 'Healthy' | 'Degraded' | 'Unhealthy';

export interface HealthCheckResult {
  status: HealthStatus;
  description?: string;
}

export interface HealthCheck {
  readonly name: string;
  readonly tags: readonly string[];
  /** Resolves with the result; a throw or a timeout counts as Unhealthy. */
  check(signal: AbortSignal): Promise<HealthCheckResult> | HealthCheckResult;
  /** Overrides the registry's default timeout (ms). */
  readonly timeoutMs?: number;
}

export interface HealthReport {
  status: HealthStatus;
  checks: { name: string; status: HealthStatus; durationMs: number; description?: string }[];
}

const RANK: Record<HealthStatus, number> = { Healthy: 0, Degraded: 1, Unhealthy: 2 };

/** Named, tagged checks; a probe runs those carrying its tag, in parallel, each within its timeout. */
export class HealthChecks {
  readonly #checks: HealthCheck[] = [];
  readonly #timeoutMs: number;
  readonly #clock: Clock;
  readonly #observers: ((report: HealthReport) => void)[] = [];

  /** `clock` times the checks and their timeouts; default the system clock. */
  constructor(options: { timeoutMs: number; clock?: Clock }) {
    this.#timeoutMs = options.timeoutMs;
    this.#clock = options.clock ?? systemClock;
  }

  add(check: HealthCheck): this {
    if (this.#checks.some((c) => c.name === check.name))
      throw new Error(`health check '${check.name}' is already registered`);
    this.#checks.push(check);
    return this;
  }

  /** Called with every report a probe produced (telemetry counts the results). */
  observe(observer: (report: HealthReport) => void): void {
    this.#observers.push(observer);
  }

  async run(tag: string): Promise<HealthReport> {
    const selected = this.#checks.filter((c) => c.tags.includes(tag));
    const checks = await Promise.all(selected.map((c) => this.#runOne(c)));
    const status = checks.reduce<HealthStatus>(
      (worst, c) => (RANK[c.status] > RANK[worst] ? c.status : worst),
      'Healthy',
    );
    const report = { status, checks };
    for (const observer of this.#observers) observer(report);
    return report;
  }

  async #runOne(check: HealthCheck): Promise<HealthReport['checks'][number]> {
    const clock = this.#clock;
    const started = clock.monotonicNow();
    const timeoutMs = check.timeoutMs ?? this.#timeoutMs;
    const controller = new AbortController();
    let timer: TimerHandle | undefined;
    const timeout = new Promise<HealthCheckResult>((resolve) => {
      timer = clock.setTimeout(() => {
        controller.abort();
        resolve({ status: 'Unhealthy', description: `timed out after ${timeoutMs} ms` });
      }, timeoutMs);
    });
    let result: HealthCheckResult;
    try {
      result = await Promise.race([Promise.resolve().then(() => check.check(controller.signal)), timeout]);
    } catch (err) {
      result = { status: 'Unhealthy', description: err instanceof Error ? err.message : String(err) };
    } finally {
      if (timer !== undefined) clock.clearTimeout(timer);
    }
    const durationMs = Math.round((clock.monotonicNow() - started) * 100) / 100;
    return {
      name: check.name,
      status: result.status,
      durationMs,
      ...(result.description ? { description: result.description } : {}),
    };
  }
}
