import type { PeerConnections, PeerReply, PeerRequest } from '../../realtime/peer-connections.js';

/** The instances of one process (tests): what one asks, every other answers. */
export class MemoryPeerBus {
  readonly #nodes = new Set<MemoryPeer>();

  node(): MemoryPeer {
    const node = new MemoryPeer(this);
    this.#nodes.add(node);
    return node;
  }

  /** @internal */
  others(of: MemoryPeer): MemoryPeer[] {
    return [...this.#nodes].filter((n) => n !== of);
  }

  /** @internal */
  leave(node: MemoryPeer): void {
    this.#nodes.delete(node);
  }
}

export class MemoryPeer implements PeerConnections {
  readonly #bus: MemoryPeerBus;
  #handler: ((request: PeerRequest) => PeerReply) | undefined;

  constructor(bus: MemoryPeerBus) {
    this.#bus = bus;
  }

  async ask(request: PeerRequest): Promise<PeerReply[]> {
    // Answered asynchronously and on copies, as over a wire.
    await Promise.resolve();
    return this.#bus.others(this).flatMap((node) => {
      const reply = node.answer(structuredClone(request));
      return reply === undefined ? [] : [structuredClone(reply)];
    });
  }

  serve(handler: (request: PeerRequest) => PeerReply): void {
    this.#handler = handler;
  }

  close(): void {
    this.#bus.leave(this);
  }

  /** @internal */
  answer(request: PeerRequest): PeerReply | undefined {
    return this.#handler?.(request);
  }
}
