/** The spread of one measure over repeated runs. */
export interface Spread {
  runs: number;
  min: number;
  max: number;
}

/**
 * The run whose `key` is the median of the runs that measured it (the lower middle one for an
 * even count), and the spread of `key` over them. Runs without a value (errors) are left out;
 * when none has one, the first run stands for all.
 */
export function medianRun<T>(
  runs: readonly T[],
  key: (run: T) => number | undefined,
): { run: T; spread: Spread | undefined } {
  const measured = runs.filter((r) => Number.isFinite(key(r))).sort((a, b) => key(a)! - key(b)!);
  if (measured.length === 0) return { run: runs[0]!, spread: undefined };
  const values = measured.map((r) => key(r)!);
  return {
    run: measured[(measured.length - 1) >> 1]!,
    spread: { runs: measured.length, min: values[0]!, max: values.at(-1)! },
  };
}

/** The median of the finite values, undefined when there are none. */
export function median(values: readonly (number | undefined)[]): number | undefined {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x)).sort((a, b) => a - b);
  return v.length === 0
    ? undefined
    : v.length % 2 === 1
      ? v[v.length >> 1]
      : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
}
