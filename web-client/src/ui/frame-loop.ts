/** Jank seen since load (or the last `resetStats`), measured between requestAnimationFrame timestamps. */
export interface FrameStats {
  frames: number;
  /** Longest gap between two consecutive frames (ms). */
  longestFrameMs: number;
  /** Frames that took longer than 50 ms (a "long" frame an operator would notice). */
  framesOver50ms: number;
  /** 95th percentile frame time (ms) over the last `RECENT_FRAMES` frames; 0 before the first frame. */
  p95FrameMs: number;
}

/** Frame times kept for the percentile: about 20 s at 60 fps. */
const RECENT_FRAMES = 1200;

/**
 * The single requestAnimationFrame loop: every DOM and chart update runs from here, at most once per frame,
 * however many readings arrived in between. Also measures frame times for the test hook.
 */
export class FrameLoop {
  private readonly tasks: ((now: number) => void)[] = [];
  private prev: number | null = null;
  private s = { frames: 0, longestFrameMs: 0, framesOver50ms: 0 };
  private readonly recent = new Float64Array(RECENT_FRAMES);

  add(task: (now: number) => void): void {
    this.tasks.push(task);
  }

  start(): void {
    // A hidden tab gets no frames; the pause on return is not jank, so measuring restarts then.
    document.addEventListener('visibilitychange', () => (this.prev = null));
    requestAnimationFrame(this.tick);
  }

  stats(): FrameStats {
    const n = Math.min(this.s.frames, RECENT_FRAMES);
    const sorted = this.recent.slice(0, n).sort();
    const p95FrameMs = n ? (sorted[Math.min(n - 1, Math.ceil(n * 0.95) - 1)] as number) : 0;
    return { ...this.s, p95FrameMs };
  }

  /** Starts a new measurement (e.g. after start-up, which is allowed to be slow). */
  resetStats(): void {
    this.s = { frames: 0, longestFrameMs: 0, framesOver50ms: 0 };
    this.prev = null;
  }

  private readonly tick = (ts: number) => {
    if (this.prev !== null) {
      const dt = ts - this.prev;
      this.recent[this.s.frames % RECENT_FRAMES] = dt;
      this.s.frames++;
      if (dt > this.s.longestFrameMs) this.s.longestFrameMs = dt;
      if (dt > 50) this.s.framesOver50ms++;
    }
    this.prev = ts;
    for (const task of this.tasks) {
      try {
        task(ts);
      } catch (err) {
        // One broken view must not stop the loop for all the others.
        console.error('frame task failed', err);
      }
    }
    requestAnimationFrame(this.tick);
  };
}
