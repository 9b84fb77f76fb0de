import type { HealthCheck, HealthCheckResult } from './health-checks.js';

/** One dependency the process serves without: resolves undefined when it answers, else why not. */
export interface OptionalDependency {
  readonly name: string;
  probe(signal: AbortSignal): Promise<string | undefined>;
}

/**
 * The `external-api` check (tag `ready`): the dependencies the process can serve without. One that
 * fails makes it Degraded, never Unhealthy, so `/health/ready` stays 200 and no orchestrator takes
 * the instance out of rotation for, say, a collector being down. Each probe gets its own deadline,
 * shorter than the registry's timeout, which would count as Unhealthy.
 */
export function externalApiCheck(dependencies: readonly OptionalDependency[], timeoutMs: number): HealthCheck {
  const probeMs = Math.max(1, Math.floor(timeoutMs * 0.8));
  return {
    name: 'external-api',
    tags: ['ready'],
    async check(): Promise<HealthCheckResult> {
      const failures = await Promise.all(
        dependencies.map(async (d) => {
          const signal = AbortSignal.timeout(probeMs);
          try {
            const problem = await Promise.race([d.probe(signal), aborted(signal, probeMs)]);
            return problem === undefined ? undefined : `${d.name}: ${problem}`;
          } catch (err) {
            return `${d.name}: ${err instanceof Error ? err.message : String(err)}`;
          }
        }),
      );
      const failed = failures.filter((f): f is string => f !== undefined);
      return failed.length === 0 ? { status: 'Healthy' } : { status: 'Degraded', description: failed.join('; ') };
    },
  };
}

function aborted(signal: AbortSignal, ms: number): Promise<string> {
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(`no answer within ${ms} ms`), { once: true }),
  );
}

/**
 * An HTTP service is there when it answers below 500 (an OTLP collector answers a GET of its
 * export path with 405, which still says it is up); a refused connection, a timeout or a 5xx is not.
 */
export function httpDependency(name: string, url: string): OptionalDependency {
  return {
    name,
    async probe(signal) {
      try {
        const res = await fetch(url, { signal, headers: { 'cache-control': 'no-cache' } });
        await res.body?.cancel();
        return res.status < 500 ? undefined : `answered ${res.status}`;
      } catch (err) {
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        return signal.aborted ? 'no answer in time' : `unreachable${cause ? ` (${cause})` : ''}`;
      }
    },
  };
}
