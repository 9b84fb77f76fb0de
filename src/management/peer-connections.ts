import type { GroupJoin } from './management-service.js';

/** What one instance asks the others to do with their local connections. */
export type PeerRequest =
  | { op: 'join'; connectionId: string; group: string }
  | { op: 'leave'; connectionId: string; group: string }
  | { op: 'close'; connectionId: string }
  | { op: 'exists'; connectionId: string }
  | { op: 'members'; group: string };

/** One instance's answer: whether it has the connection, and what the operation did there. */
export interface PeerReply {
  found: boolean;
  join?: GroupJoin;
  members?: { connectionId: string; userId?: string | undefined }[];
}

/**
 * The management API's reach into other instances: a connection lives on one instance, and a
 * request about it may arrive at any. `ask` runs a request on every other instance and resolves
 * with the answers of those that gave one in time (an instance that died meanwhile gives none).
 */
export interface PeerConnections {
  ask(request: PeerRequest): Promise<PeerReply[]>;
  /** How this instance answers the others' requests (its hub's local connections). */
  serve(handler: (request: PeerRequest) => PeerReply): void;
}

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
