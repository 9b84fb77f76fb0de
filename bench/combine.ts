import { median, medianRun } from './harness/repeat.js';
import type { FanoutCase } from './scenarios/fanout.js';
import type { HttpResult } from './scenarios/http.js';
import type { MemoryResult } from './scenarios/idle-memory.js';
import type { IngestResult } from './scenarios/ingestion.js';

/**
 * Repeated runs of one case → one row: the run with the median max rate (its latencies and why
 * its ramp stopped), the median CPU per message over all runs, and the spread of the max rate.
 */
export function combineFanout(runs: FanoutCase[]): FanoutCase {
  const { run, spread } = medianRun(runs, (r) => (r.error ? undefined : r.best?.delivered));
  const high = run.fixed[1];
  const cpu = median(runs.map((r) => (r.error ? undefined : r.fixed[1]?.cpuUsPerMsg)));
  return {
    ...run,
    fixed: [run.fixed[0], high && { ...high, cpuUsPerMsg: cpu ?? high.cpuUsPerMsg }],
    alloc: runs.find((r) => r.alloc)?.alloc,
    spread,
    // A ratio needs every run measured to failure: one capped run makes the median a floor.
    capped: runs.some((r) => r.capped),
  };
}

export function combineMemory(runs: MemoryResult[]): MemoryResult {
  const { run, spread } = medianRun(runs, (r) => r.rssMbPer1000);
  return { ...run, heapMbPer1000: median(runs.map((r) => r.heapMbPer1000)), spread };
}

export function combineHttp(runs: HttpResult[]): HttpResult {
  const { run, spread } = medianRun(runs, (r) => r.requestsPerSecond);
  return { ...run, cpuUsPerRequest: median(runs.map((r) => r.cpuUsPerRequest)), spread };
}

export function combineIngest(runs: IngestResult[]): IngestResult {
  const { run, spread } = medianRun(runs, (r) => r.max);
  const cpu = median(runs.map((r) => r.cpuUsPerReading));
  const cpuRuns = runs.map((r) => r.cpuUsPerReading).filter((v): v is number => v !== undefined && Number.isFinite(v));
  return {
    ...run,
    cpuUsPerReading: cpu,
    busiestCpuUsPerReading: median(runs.map((r) => r.busiestCpuUsPerReading)),
    cpuSpread: cpuRuns.length
      ? { runs: cpuRuns.length, min: Math.min(...cpuRuns), max: Math.max(...cpuRuns) }
      : undefined,
    spread,
    capped: runs.some((r) => r.capped),
  };
}
