/** A device is online when the hub saw it within this long. */
export const ONLINE_WITHIN_MS = 10_000;

export function isOnline(lastSeen: number | null, hubNow: number): boolean {
  return lastSeen !== null && hubNow - lastSeen < ONLINE_WITHIN_MS;
}

/** Short relative time for a row that is re-rendered every second ("4 s ago", "3 min ago"). */
export function relativeTime(then: number | null, now: number): string {
  if (then === null) return 'never';
  const s = Math.max(0, Math.floor((now - then) / 1000));
  if (s < 1) return 'just now';
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ago`;
  return `${Math.floor(h / 24)} d ago`;
}

// One formatter for the whole page: creating Intl objects per value is costly at thousands per second.
const NUMBER = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

export function formatValue(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? NUMBER.format(v) : String(v);
  if (typeof v === 'string') return v.length > 24 ? `${v.slice(0, 23)}…` : v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null) return 'null';
  return Array.isArray(v) ? '[…]' : '{…}';
}

/** "temperature 21.5 · humidity 40.1", at most `max` fields. */
export function summarizeData(data: Record<string, unknown> | undefined, max = 3): string {
  if (!data) return 'no data yet';
  const keys = Object.keys(data);
  const parts = keys.slice(0, max).map((k) => `${k} ${formatValue(data[k])}`);
  if (keys.length > max) parts.push(`+${keys.length - max}`);
  return parts.length ? parts.join(' · ') : 'empty reading';
}

/** Series colours: all ≥ 4.5:1 against the chart background (#161b22). */
export const SERIES_COLORS = ['#7cc4ff', '#ffb86b', '#8be28b', '#ff9ecd', '#c9b3ff', '#f4e07a', '#6ee7d8', '#ffa3a3'];
