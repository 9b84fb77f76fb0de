import type { Backplane } from '../../realtime/backplane.js';
import type { BackplaneEnvelope } from '../../wire/backplane-codec.js';

/**
 * What the memory backplanes of one process share: the nodes attached to it. One bus is one
 * cluster; hubs on separate buses never hear of each other.
 */
export class MemoryBackplaneBus {
  readonly #nodes = new Set<MemoryBackplane>();

  /** A new node on this bus. */
  node(): MemoryBackplane {
    return new MemoryBackplane(this);
  }

  /** @internal */
  attach(node: MemoryBackplane): void {
    this.#nodes.add(node);
  }

  /** @internal */
  detach(node: MemoryBackplane): void {
    this.#nodes.delete(node);
  }

  /** @internal Hands every node but the sender (of a group envelope: every one watching it) its own copy of `envelope`. */
  carry(from: MemoryBackplane, envelope: BackplaneEnvelope): void {
    for (const node of this.#nodes) {
      if (node !== from && (envelope.kind !== 'group' || node.watching(envelope.group)))
        node.receive(structuredClone(envelope));
    }
  }
}

/**
 * Scale-out between hubs in one process, as the Redis backplane does between processes: what one
 * node publishes reaches every other node on the same bus, never itself. Delivery is asynchronous
 * and on each node's own copy of the envelope, as over a wire, so a hub cannot depend on a synchronous or shared
 * hand-over that a real backplane would not give it. A node made without a bus is alone.
 */
export class MemoryBackplane implements Backplane {
  readonly #bus: MemoryBackplaneBus;
  readonly #handlers: ((envelope: BackplaneEnvelope) => void)[] = [];
  readonly #watched = new Set<string>();
  #closed = false;

  constructor(bus: MemoryBackplaneBus = new MemoryBackplaneBus()) {
    this.#bus = bus;
    bus.attach(this);
  }

  publish(envelope: BackplaneEnvelope): void {
    if (this.#closed) return;
    this.#bus.carry(this, envelope);
  }

  onMessage(handler: (envelope: BackplaneEnvelope) => void): void {
    this.#handlers.push(handler);
  }

  async watch(group: string): Promise<void> {
    this.#watched.add(group);
  }

  unwatch(group: string): void {
    this.#watched.delete(group);
  }

  /** @internal */
  watching(group: string): boolean {
    return this.#watched.has(group);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#bus.detach(this);
  }

  /** @internal Called by the bus; delivers after the publisher's current task, in publish order. */
  receive(envelope: BackplaneEnvelope): void {
    queueMicrotask(() => {
      if (this.#closed) return;
      for (const handler of this.#handlers) handler(envelope);
    });
  }
}
