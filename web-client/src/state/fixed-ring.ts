/** The last `capacity` numbers, oldest first on read. Used for sparklines (~60 points per device). */
export class FixedRing {
  private readonly buf: Float64Array;
  private start = 0;
  length = 0;

  constructor(readonly capacity: number) {
    this.buf = new Float64Array(capacity);
  }

  push(v: number): void {
    if (this.length < this.capacity) {
      this.buf[(this.start + this.length++) % this.capacity] = v;
    } else {
      this.buf[this.start] = v;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** i = 0 is the oldest. */
  at(i: number): number {
    return this.buf[(this.start + i) % this.capacity] ?? Number.NaN;
  }
}
