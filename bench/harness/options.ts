import type { RampOptions } from './ramp.js';

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
  /** The fan-out ramp after the fixed rates (to failure, proportional steps). */
  ramp: RampOptions;
  /** Sample the server's heap allocations at the high fixed rate. */
  allocations: boolean;
  /** Runs of every case; the tables report the median and the spread. */
  repeat: number;
  /** Tried when the lowest fixed rate already misses the criteria. */
  lowRates: number[];
  settleMs: number;
  fixedWindowMs: number;
  rampWindowMs: number;
  /** Idle connections per server for the memory benchmark. */
  idleConnections: number;
  httpDurationSeconds: number;
  httpConnections: number;
  /** First publish rate (readings/s) of the ingestion ramp; CPU per reading is measured there. */
  ingestStart: number;
  ingestRamp: RampOptions;
  ingestDevices: number;
  ingestWindowMs: number;
  /** Idle subscribers one server holds in the density scenario, from how many client processes, and the big group's members among them. */
  densityConnections: number;
  densityProcesses: number;
  densityHot: number;
}

export function benchOptions(quick: boolean): BenchOptions {
  if (quick) {
    return {
      quick,
      fanoutSizes: [200],
      groups: 100,
      fixedRates: [1000, 2000],
      ramp: { cap: 4000, coarseFactor: 2, fineFactor: 2 },
      allocations: true,
      repeat: 1,
      lowRates: [500],
      settleMs: 300,
      fixedWindowMs: 700,
      rampWindowMs: 700,
      idleConnections: 200,
      httpDurationSeconds: 1,
      httpConnections: 50,
      ingestStart: 2000,
      ingestRamp: { cap: 4000, coarseFactor: 2, fineFactor: 2 },
      ingestDevices: 100,
      ingestWindowMs: 700,
      densityConnections: 200,
      densityProcesses: 2,
      densityHot: 50,
    };
  }
  return {
    quick,
    fanoutSizes: [1000, 5000],
    groups: 100,
    fixedRates: [10_000, 20_000],
    // 1M/s: far above any server on this machine (µWebSockets reached 160k); reaching it is reported, never used as a ratio.
    ramp: { cap: 1_000_000, coarseFactor: 2, fineFactor: 1.1 },
    allocations: true,
    repeat: 1,
    lowRates: [7500, 5000, 2500],
    settleMs: 1000,
    fixedWindowMs: 4000,
    rampWindowMs: 2500,
    idleConnections: 5000,
    httpDurationSeconds: 5,
    httpConnections: 50,
    ingestStart: 20_000,
    ingestRamp: { cap: 1_000_000, coarseFactor: 2, fineFactor: 1.1 },
    ingestDevices: 1000,
    ingestWindowMs: 2500,
    densityConnections: 100_000,
    densityProcesses: 10,
    densityHot: 10_000,
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
