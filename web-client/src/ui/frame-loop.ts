/** Jank seen since load, measured between requestAnimationFrame timestamps. */
export interface FrameStats {
  frames: number;
  /** Longest gap between two consecutive frames (ms). */
  longestFrameMs: number;
  /** Frames that took longer than 50 ms (a "long" frame an operator would notice). */
  framesOver50ms: number;
}

/**
 * The single requestAnimationFrame loop: every DOM and chart update runs from here, at most once per frame,
 * however many readings arrived in between. Also measures frame times for the test hook.
 */
export class FrameLoop {
  private readonly tasks: ((now: number) => void)[] = [];
  private prev: number | null = null;
  private readonly s: FrameStats = { frames: 0, longestFrameMs: 0, framesOver50ms: 0 };

  add(task: (now: number) => void): void {
    this.tasks.push(task);
  }

  start(): void {
    // A hidden tab gets no frames; the pause on return is not jank, so measuring restarts then.
    document.addEventListener('visibilitychange', () => (this.prev = null));
    requestAnimationFrame(this.tick);
  }

  stats(): FrameStats {
    return { ...this.s };
  }

  private readonly tick = (ts: number) => {
    if (this.prev !== null) {
      const dt = ts - this.prev;
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
