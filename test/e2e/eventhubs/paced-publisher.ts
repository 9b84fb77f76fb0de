import {
  createEventHubsPublisher,
  type EventHubsPublisher,
} from '../../../src/adapters/eventhubs/eventhubs-publisher.js';

/**
 * Publishes one reading `{ n }` per device every `everyMs` through the real producer (partition key =
 * device id), n counting up from 0 for all devices together. Paced so a partition's batch holds at
 * most one reading of a device while its owner keeps up: the throttle then never conflates, and a
 * subscriber is owed every reading.
 */
export class PacedPublisher {
  readonly tenantId: string;
  readonly #publisher: EventHubsPublisher;
  readonly #devices: readonly string[];
  readonly #everyMs: number;
  #next = 0;
  #timer: NodeJS.Timeout | undefined;
  #sends: Promise<unknown>[] = [];

  constructor(connectionString: string, tenantId: string, devices: readonly string[], everyMs = 100) {
    this.#publisher = createEventHubsPublisher(connectionString, undefined, { lingerMs: 1 });
    this.tenantId = tenantId;
    this.#devices = devices;
    this.#everyMs = everyMs;
  }

  /** The n of the newest round sent, -1 before the first. */
  get last(): number {
    return this.#next - 1;
  }

  /** Sends `count` rounds, paced, and resolves once the event hub accepted them all. */
  async rounds(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, this.#everyMs));
      this.#round();
    }
    await this.pause();
  }

  /** Keeps sending a round every `everyMs` until `pause`. */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#round();
    this.#timer = setInterval(() => this.#round(), this.#everyMs);
  }

  /** Stops sending; resolves once the event hub accepted everything sent. */
  async pause(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    const sends = this.#sends;
    this.#sends = [];
    await Promise.all(sends);
  }

  async close(): Promise<void> {
    await this.pause();
    await this.#publisher.close();
  }

  #round(): void {
    const n = this.#next++;
    for (const deviceId of this.#devices) this.#sends.push(this.#publisher.publish(this.tenantId, deviceId, { n }));
  }
}
