/**
 * Sizes of one run. `--quick` keeps every code path with tiny N and short windows (a CI smoke
 * run that asserts no timings); the full run is the one whose numbers go into bench/README.md.
 */
export interface BenchOptions {
  quick: boolean;
  /** Subscriber counts for the fan-out benchmark. */
  fanoutSizes: number[];
  /** Groups (= devices) subscribers are spread over. */
  groups: number;
  /** Delivered msgs/s at which p50/p99 are reported (the 10k and 20k). */
  fixedRates: [number, number];
  /** Delivered msgs/s steps of the ramp (after the fixed rates), ascending. */
  rampRates: number[];
  /** Tried when the lowest fixed rate already misses the criteria. */
  lowRates: number[];
  settleMs: number;
  fixedWindowMs: number;
  rampWindowMs: number;
  /** Idle connections per server for the memory benchmark. */
  idleConnections: number;
  httpDurationSeconds: number;
  httpConnections: number;
  /** Publish rates (readings/s) of the ingestion ramp. */
  ingestRates: number[];
  ingestDevices: number;
  ingestWindowMs: number;
}

export function benchOptions(quick: boolean): BenchOptions {
  if (quick) {
    return {
      quick,
      fanoutSizes: [200],
      groups: 100,
      fixedRates: [1000, 2000],
      rampRates: [4000],
      lowRates: [500],
      settleMs: 300,
      fixedWindowMs: 700,
      rampWindowMs: 700,
      idleConnections: 200,
      httpDurationSeconds: 1,
      httpConnections: 50,
      ingestRates: [2000, 4000],
      ingestDevices: 100,
      ingestWindowMs: 700,
    };
  }
  const ramp: number[] = [];
  for (let r = 25_000; r <= 60_000; r += 5000) ramp.push(r);
  for (let r = 70_000; r <= 120_000; r += 10_000) ramp.push(r);
  return {
    quick,
    fanoutSizes: [1000, 5000],
    groups: 100,
    fixedRates: [10_000, 20_000],
    rampRates: ramp,
    lowRates: [7500, 5000, 2500],
    settleMs: 1000,
    fixedWindowMs: 4000,
    rampWindowMs: 2500,
    idleConnections: 5000,
    httpDurationSeconds: 5,
    httpConnections: 50,
    ingestRates: [20_000, 30_000, 40_000, 50_000, 60_000, 70_000, 80_000, 100_000, 120_000],
    ingestDevices: 1000,
    ingestWindowMs: 2500,
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
