import { Session } from 'node:inspector/promises';

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}

/** Where the allocated bytes went: the heaviest allocating functions (self bytes). */
export interface HeapSample {
  /** Estimated bytes allocated during the sampling (V8 scales the samples). */
  bytes: number;
  top: { fn: string; bytes: number }[];
  at: number;
}

let session: Session | undefined;

/**
 * V8's sampling heap profiler, in-process: every allocation has a chance of being sampled
 * proportional to its size, and V8 scales the samples to an estimate of all bytes allocated.
 * Started and stopped around one measured window (not during CPU measurements: it costs a little).
 * `liveOnly`: only what is still reachable when sampling stops (what idle connections hold).
 */
export async function startHeapSampling(intervalBytes = 1024, liveOnly = false): Promise<void> {
  session ??= new Session();
  try {
    session.connect();
  } catch {
    // connected already
  }
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: intervalBytes,
    includeObjectsCollectedByMajorGC: !liveOnly,
    includeObjectsCollectedByMinorGC: !liveOnly,
  });
}

export async function stopHeapSampling(): Promise<HeapSample> {
  if (session === undefined) throw new Error('heap sampling was not started');
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: SamplingNode } };
  const byFn = new Map<string, number>();
  let bytes = 0;
  const walk = (node: SamplingNode) => {
    bytes += node.selfSize;
    if (node.selfSize > 0) {
      const { functionName, url, lineNumber } = node.callFrame;
      const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}`;
      byFn.set(key, (byFn.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const top = [...byFn]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 15)
    .map(([fn, b]) => ({ fn, bytes: b }));
  return { bytes, top, at: performance.now() };
}
