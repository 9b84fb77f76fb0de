import { benchClock } from './clock.js';
import { startHeapSampling, stopHeapSampling } from './heap-sampling.js';

/** A request handler inside a bench process; its result goes back to the orchestrator. */
export type Handlers = Record<string, (payload: unknown) => unknown>;

/**
 * The child side of child-process.ts: answers `{ id, type, payload }` requests over IPC, announces
 * `ready` with `info`, and exits when the orchestrator goes away or sends SIGTERM, so no bench
 * process outlives a run. Every process answers `clock` (for offset synchronisation), `cpu` and
 * (µs, with the process's own `at` in ms, so rates do not depend on IPC delays) and `memory`
 * (after GC when started with --expose-gc), and `heapStart`/`heapStop` (sampled bytes allocated).
 */
export function serveParent(handlers: Handlers, info: Record<string, unknown> = {}): void {
  const all: Handlers = {
    clock: () => benchClock(),
    cpu: () => ({ ...process.cpuUsage(), at: performance.now() }),
    memory: async () => {
      const gc = (globalThis as { gc?: () => void }).gc;
      if (gc) {
        for (let i = 0; i < 4; i++) {
          gc();
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      return { ...process.memoryUsage(), gc: gc !== undefined };
    },
    heapStart: (payload) => startHeapSampling(1024, (payload as { liveOnly?: boolean } | undefined)?.liveOnly === true),
    heapStop: () => stopHeapSampling(),
    ...handlers,
  };
  process.on('message', (raw) => {
    const msg = raw as { id: number; type: string; payload: unknown };
    const handler = all[msg.type];
    if (!handler) {
      process.send?.({ id: msg.id, ok: false, error: `unknown request '${msg.type}'` });
      return;
    }
    Promise.resolve()
      .then(() => handler(msg.payload))
      .then(
        (result) => process.send?.({ id: msg.id, ok: true, result }),
        (err: unknown) =>
          process.send?.({
            id: msg.id,
            ok: false,
            error: err instanceof Error ? (err.stack ?? err.message) : String(err),
          }),
      );
  });
  process.on('disconnect', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
  process.send?.({ type: 'ready', info });
}

/** The JSON argument every bench process takes as argv[2]. */
export function processArgs<T>(): T {
  const raw = process.argv[2];
  if (raw === undefined) throw new Error('missing JSON argument');
  return JSON.parse(raw) as T;
}
