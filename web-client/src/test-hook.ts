import type { ConnectionState } from './connection/live-connection';
import type { FrameStats } from './ui/frame-loop';

/** What browser tests may read: `window.__hub`. Kept tiny on purpose; it is not an API for anything else. */
export interface HubTestHook {
  state(): ConnectionState;
  followed(): string[];
  frameStats(): FrameStats;
  /** Starts a new frame-time measurement, so start-up frames do not count. */
  resetFrameStats(): void;
  /** Times (epoch ms) of the rows a followed device's chart holds, oldest first: history, then live. */
  chartRows(deviceId: string): number[];
}

declare global {
  interface Window {
    __hub?: HubTestHook;
  }
}

export function installTestHook(hook: HubTestHook): void {
  window.__hub = hook;
}
