/**
 * Puts metrics whose newest value is more than 10× off the first metric's on a right-hand axis, so e.g.
 * temperature (≈20) is not flattened by pressure (≈1000) on one shared scale. Values below 1 in size
 * (counters at 0, ratios) fit any axis and stay on the left.
 */
export function assignScales(metrics: readonly string[], latest: ReadonlyMap<string, number>): string[] {
  const mag = (name: string) => Math.log10(Math.max(Math.abs(latest.get(name) ?? 0), 1));
  const first = metrics[0] === undefined ? 0 : mag(metrics[0]);
  return metrics.map((name, i) => {
    const m = mag(name);
    return i > 0 && m > 0 && Math.abs(m - first) > 1 ? 'y2' : 'y';
  });
}

/** Axis spans a chart grows through before it reaches its window (ms). */
const SPAN_STEPS_MS = [30_000, 60_000, 120_000, 300_000, 900_000];

/**
 * Time the x axis spans: the window, or while the chart holds less than a window of data (just followed, hub
 * just started) the smallest step that covers it, so a new chart is not a few pixels at the right edge of an
 * empty 5 minutes. Steps rather than the exact age keep the axis still between steps.
 */
export function axisSpan(dataAgeMs: number, windowMs: number): number {
  return Math.min(windowMs, SPAN_STEPS_MS.find((s) => s >= dataAgeMs) ?? windowMs);
}
