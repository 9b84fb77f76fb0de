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
