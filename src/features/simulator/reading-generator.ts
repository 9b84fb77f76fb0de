/** Realistic-looking readings: a daily sine for temperature and humidity, noise, rare spikes. */
export interface SimulatedReading {
  ts: number;
  temperature: number;
  humidity: number;
  battery: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export class ReadingGenerator {
  readonly #phase: number;
  readonly #base: number;
  readonly #random: () => number;
  #battery = 100;

  /** `index` spreads devices' phases and baselines, so ten devices draw ten different lines. */
  constructor(index: number, random: () => number = Math.random) {
    this.#random = random;
    this.#phase = (index * 0.61) % (2 * Math.PI);
    this.#base = 19 + ((index * 7) % 6);
  }

  next(now: number): SimulatedReading {
    const day = Math.sin((2 * Math.PI * (now % DAY_MS)) / DAY_MS + this.#phase);
    // A faster wobble, so a chart shows movement within minutes, not only over a day.
    const wobble = Math.sin(now / 20_000 + this.#phase) * 0.6;
    const spike = this.#random() < 0.01 ? 4 + this.#random() * 4 : 0;
    const temperature = this.#base + 4 * day + wobble + this.#noise(0.15) + spike;
    const humidity = Math.min(100, Math.max(0, 45 - 12 * day - wobble * 2 + this.#noise(0.5)));
    this.#battery = Math.max(0, this.#battery - this.#random() * 0.002);
    return {
      ts: now,
      temperature: round(temperature, 2),
      humidity: round(humidity, 1),
      battery: round(this.#battery, 2),
    };
  }

  /** Roughly normal noise from the sum of uniforms (no need for Box–Muller here). */
  #noise(sigma: number): number {
    return (this.#random() + this.#random() + this.#random() - 1.5) * sigma * 2;
  }
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
