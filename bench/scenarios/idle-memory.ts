import { withChildren } from '../harness/child-process.js';
import type { HeapSample } from '../harness/heap-sampling.js';
import type { Spread } from '../harness/repeat.js';
import { sleep, type BenchOptions } from '../harness/options.js';
import { serverExecArgv, type Target } from './targets.js';

export interface MemoryResult {
  target: Target;
  n: number;
  /** RSS growth per 1000 idle connections, MB (after GC). */
  rssMbPer1000?: number;
  /** V8 heap + external growth per 1000 idle connections, MB (after GC). */
  heapMbPer1000?: number;
  /** RSS per 1000 over repeated runs. */
  spread?: Spread;
  error?: string;
}

type Memory = NodeJS.MemoryUsage & { gc: boolean };
const MB = 1024 * 1024;

/**
 * Idle memory: the server's RSS after GC (--expose-gc) before and after N subscribers connected
 * and joined their groups, with no traffic. A first batch of 20 connects and leaves before the
 * baseline, so code paths compiled on first use are not charged to the connections.
 */
export async function runIdleMemory(opts: BenchOptions, target: Target): Promise<MemoryResult> {
  const n = opts.idleConnections;
  try {
    return await withChildren(async (start) => {
      const server = await start(target.process, {
        args: [JSON.stringify(target.args(undefined))],
        execArgv: ['--expose-gc', ...serverExecArgv()],
      });
      const subArgs = (count: number) => [
        JSON.stringify({ kind: target.kind, url: server.ready.url, n: count, groups: opts.groups }),
      ];
      const warm = await start('subscribers', { args: subArgs(20) });
      await warm.request('connect');
      await warm.stop();
      await sleep(500);
      const before = await server.request<Memory>('memory');
      // BENCH_VERBOSE: what the idle connections hold, by allocating function (sampled, live objects only).
      if (process.env.BENCH_VERBOSE) await server.request('heapStart', { liveOnly: true });
      if (!before.gc) throw new Error('server runs without --expose-gc');
      const subs = await start('subscribers', { args: subArgs(n) });
      const c = await subs.request<{ failed: number; error?: string }>('connect', { concurrency: 100 }, 180_000);
      if (c.failed > 0) throw new Error(`${c.failed}/${n} subscribers failed: ${c.error}`);
      await sleep(1000);
      const after = await server.request<Memory>('memory');
      if (process.env.BENCH_VERBOSE) {
        const heap = await server.request<HeapSample>('heapStop');
        for (const t of heap.top) console.error(`   holds ${(t.bytes / n) | 0} B/connection  ${t.fn}`);
      }
      const per1000 = (bytes: number) => (bytes / MB / n) * 1000;
      return {
        target,
        n,
        rssMbPer1000: per1000(after.rss - before.rss),
        heapMbPer1000: per1000(after.heapUsed + after.external - before.heapUsed - before.external),
      };
    });
  } catch (err) {
    return { target, n, error: (err as Error).message.split('\n')[0] };
  }
}
