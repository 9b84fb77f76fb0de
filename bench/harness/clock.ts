import type { BenchChild } from './child-process.js';

/**
 * The bench's latency clock: wall-clock epoch ms with sub-millisecond resolution
 * (`performance.timeOrigin + performance.now()`). Every process on the machine reads the same
 * kernel wall clock at start; the orchestrator still measures each process's offset (clockOffset)
 * so end-to-end latency is corrected for whatever the two processes disagree on.
 */
export function benchClock(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * How far `child`'s benchClock is ahead of this process's, from the IPC round trip with the
 * smallest delay (its error is at most half that round trip, typically < 0.2 ms).
 */
export async function clockOffset(child: BenchChild, samples = 15): Promise<{ offsetMs: number; rttMs: number }> {
  let best = { offsetMs: 0, rttMs: Infinity };
  for (let i = 0; i < samples; i++) {
    const t0 = benchClock();
    const remote = await child.request<number>('clock');
    const t1 = benchClock();
    if (t1 - t0 < best.rttMs) best = { offsetMs: remote - (t0 + t1) / 2, rttMs: t1 - t0 };
  }
  return best;
}
