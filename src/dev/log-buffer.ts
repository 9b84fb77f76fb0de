/**
 * The last `capacity` lines a resource printed, and live listeners for new ones. Bounded: a chatty
 * process cannot grow the orchestrator's memory; a listener that falls behind is its own problem
 * (the dashboard's stream drops on backpressure, see dev-dashboard).
 */
export class LogBuffer {
  readonly #lines: string[] = [];
  readonly #capacity: number;
  readonly #listeners = new Set<(line: string) => void>();
  #partial = '';
  /** Lines ever pushed (kept or not): a position in the log. */
  #total = 0;

  constructor(capacity = 1000) {
    this.#capacity = capacity;
  }

  /** Takes a chunk of output; whole lines are kept, a trailing part waits for its newline. */
  write(chunk: string): void {
    const parts = (this.#partial + chunk).split('\n');
    this.#partial = parts.pop()!;
    // A line without end (a progress bar) must not grow without bound either.
    if (this.#partial.length > 16_384) {
      parts.push(this.#partial);
      this.#partial = '';
    }
    for (const line of parts) this.push(line.replace(/\r$/, ''));
  }

  /** Adds one line (the orchestrator's own notes about the resource). */
  push(line: string): void {
    this.#total += 1;
    this.#lines.push(line);
    if (this.#lines.length > this.#capacity) this.#lines.splice(0, this.#lines.length - this.#capacity);
    for (const listener of this.#listeners) listener(line);
  }

  /** The last `n` lines (all kept lines by default). */
  tail(n = this.#capacity): string[] {
    return this.#lines.slice(-n);
  }

  /** Where the log is now; `since(position)` gives what came after it. */
  get position(): number {
    return this.#total;
  }

  /** The kept lines pushed after `position`. */
  since(position: number): string[] {
    return this.#lines.slice(Math.max(0, this.#lines.length - (this.#total - position)));
  }

  /** Calls `listener` for every new line; returns the unsubscribe function. */
  follow(listener: (line: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
