/** One readiness poll: when it was sent and answered or timed out (ms, epoch), and whether `/health/ready` answered 200. */
export interface ReadySample {
  at: number;
  doneAt: number;
  ok: boolean;
}

/**
 * Polls every instance's `/health/ready` every `everyMs` (a stopped or dead process counts as not
 * ready once the poll times out), keeping every answer for the recovery times. The soak's hubs, and
 * the bench's density scenario's one.
 */
export function watchReadiness(slots: readonly { readonly url: string }[], everyMs = 500) {
  const samples: ReadySample[][] = slots.map(() => []);
  const latest: boolean[] = slots.map(() => false);
  let stopped = false;
  const poll = async (i: number) => {
    while (!stopped) {
      const at = Date.now();
      let ok = false;
      try {
        const res = await fetch(`${slots[i]!.url}/health/ready`, { signal: AbortSignal.timeout(everyMs * 2) });
        ok = res.status === 200;
        await res.body?.cancel();
      } catch {
        ok = false;
      }
      samples[i]!.push({ at, doneAt: Date.now(), ok });
      latest[i] = ok;
      const wait = at + everyMs - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  };
  const loops = slots.map((_, i) => poll(i));
  return {
    samples,
    latest: () => [...latest],
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/**
 * Seconds from `from` until the instance was ready again and stayed so until `until`: 0 when no
 * poll in [`windowStart`, `until`) failed, undefined when the last one there still failed. A poll
 * that ended after `until` belongs to what came next: one sent just before the next fault stopped
 * the process times out because of that fault, not this one.
 */
export function recoverySeconds(
  samples: readonly ReadySample[],
  windowStart: number,
  from: number,
  until: number,
): number | undefined {
  const window = samples.filter((s) => s.at >= windowStart && s.doneAt < until);
  let lastBad = -1;
  window.forEach((s, i) => {
    if (!s.ok) lastBad = i;
  });
  if (lastBad === -1) return 0;
  const back = window[lastBad + 1];
  if (back === undefined) return undefined;
  return Math.max(0, (back.at - from) / 1000);
}
