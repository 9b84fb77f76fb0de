import type { ConnectionMode } from '../connection/live-connection';
import { DEFAULT_WINDOW_MS } from './device-window';

/** What survives a reload. */
export interface Preferences {
  mode: ConnectionMode;
  followed: string[];
  windowMs: number;
}

export const PREFERENCES_KEY = 'telemetry-hub.dashboard.v1';
/** The chart's time range: the short ones fill from live readings, the long ones (> LIVE_WINDOW_MAX_MS) from stored history. */
export const WINDOW_CHOICES_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 86_400_000, 7 * 86_400_000] as const;
export const LIVE_WINDOW_MAX_MS = 15 * 60_000;

const DEFAULTS: Preferences = { mode: 'socket', followed: [], windowMs: DEFAULT_WINDOW_MS };

/** Reads preferences, falling back per field, so a corrupt or old entry never breaks the page. */
export function loadPreferences(storage: Pick<Storage, 'getItem'> | null): Preferences {
  let raw: unknown;
  try {
    raw = JSON.parse(storage?.getItem(PREFERENCES_KEY) ?? 'null');
  } catch {
    raw = null;
  }
  const p = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<Record<keyof Preferences, unknown>>;
  return {
    mode: p.mode === 'serverless' || p.mode === 'socket' ? p.mode : DEFAULTS.mode,
    followed: Array.isArray(p.followed)
      ? [...new Set(p.followed.filter((x): x is string => typeof x === 'string'))]
      : [],
    windowMs: WINDOW_CHOICES_MS.includes(p.windowMs as never) ? (p.windowMs as number) : DEFAULTS.windowMs,
  };
}

export function savePreferences(storage: Pick<Storage, 'setItem'> | null, prefs: Preferences): void {
  try {
    storage?.setItem(PREFERENCES_KEY, JSON.stringify(prefs));
  } catch {
    // Storage full or disabled (private mode): the dashboard still works, it just forgets on reload.
  }
}
