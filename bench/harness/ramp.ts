/** One ramp step as the ramp sees it. */
export interface RampStep {
  /** The rate asked for. */
  target: number;
  /** The rate measured. */
  achieved: number;
  /** Met the scenario's criteria (after its own retry). */
  pass: boolean;
  /** Why it missed, for the table ("p99 551 ms, 90.1 % delivered"). */
  why: string;
}

export interface RampOptions {
  /** No rate above this is asked for: a case that passes it ends "capped" and yields no ratio. */
  cap: number;
  /** Proportional resolution of the result, e.g. 1.1 (+10 %). */
  fineFactor: number;
  /** Factor of the first, coarse search, e.g. 2. */
  coarseFactor: number;
}

export interface RampResult<S extends RampStep> {
  best: S | undefined;
  stop: string;
  /** The case passed the cap, or the load generator could not reach a rate: its max is a floor, not a limit. */
  capped: boolean;
}

/**
 * Ramps a rate until the system under test fails, so a max rate is never the ramp's ceiling.
 * Coarse steps (×coarseFactor) find a miss, then proportional steps (×fineFactor) from the last
 * pass narrow it to one fine step: every server gets the same relative resolution whatever its
 * speed, in a handful of steps. `step` does its own retry after draining; a step whose measured
 * rate stays under 90 % of the asked one while passing means the load generator is the limit
 * (reported as capped: no ratio).
 */
export async function rampToFailure<S extends RampStep>(
  from: S,
  step: (rate: number) => Promise<S>,
  options: RampOptions,
  fmt: (rate: number) => string,
): Promise<RampResult<S>> {
  let best: S | undefined = from.pass ? from : undefined;
  if (!from.pass) return { best, stop: `missed at ${fmt(from.target)}/s (${from.why})`, capped: false };
  let lastMiss: S | undefined;
  let factor = options.coarseFactor;
  let last = from;
  for (;;) {
    if (last.achieved < 0.9 * last.target)
      return {
        best,
        stop: `load generator saturated at ${fmt(last.achieved)}/s (asked ${fmt(last.target)}/s)`,
        capped: true,
      };
    if (last.target >= options.cap)
      return { best, stop: `reached the cap (${fmt(options.cap)}/s) without failing`, capped: true };
    const next = Math.min(options.cap, Math.round(last.target * factor));
    if (lastMiss !== undefined && next >= lastMiss.target) {
      return { best, stop: `missed at ${fmt(lastMiss.target)}/s (${lastMiss.why})`, capped: false };
    }
    const s = await step(next);
    if (s.pass) {
      if (best === undefined || s.achieved > best.achieved) best = s;
      last = s;
      continue;
    }
    lastMiss = s;
    if (factor === options.fineFactor) return { best, stop: `missed at ${fmt(s.target)}/s (${s.why})`, capped: false };
    factor = options.fineFactor;
  }
}
