import type {
  Consumer,
  ConsumeOptions,
  Delivery,
  MessageHandler,
  MessageQueue,
  OutgoingMessage,
  QueueOptions,
} from '../../features/outbox/message-queue.js';

interface Stored {
  message: OutgoingMessage;
  attempt: number;
}

/** Messages waiting in one in-process queue, at most: beyond it publish fails and the outbox keeps them. */
export const MEMORY_QUEUE_CAPACITY = 10_000;
/** Dead letters kept per queue; the oldest are dropped first. */
export const MEMORY_DEAD_LETTER_CAPACITY = 1000;

/**
 * The in-process queue: what runs when `ConnectionStrings:rabbitmq` is unset. A `MemoryBroker` holds
 * the queues (one per name); each `MemoryQueue` is one connection to it, so closing one gives its
 * unacknowledged deliveries back, as a lost RabbitMQ connection does. Nothing survives the process.
 */
export class MemoryBroker {
  readonly #queues = new Map<string, { ready: Stored[]; dead: Delivery[]; wake: Set<() => void> }>();

  queue(name: string) {
    let q = this.#queues.get(name);
    if (q === undefined) this.#queues.set(name, (q = { ready: [], dead: [], wake: new Set() }));
    return q;
  }

  connect(options: QueueOptions): MessageQueue {
    return new MemoryQueue(this, options);
  }
}

class MemoryQueue implements MessageQueue {
  readonly #queue;
  readonly #maxAttempts: number;
  readonly #consumers = new Set<MemoryConsumer>();
  #closed = false;

  constructor(broker: MemoryBroker, options: QueueOptions) {
    if (!Number.isInteger(options.maxAttempts) || options.maxAttempts < 1)
      throw new RangeError('maxAttempts must be an integer ≥ 1');
    this.#queue = broker.queue(options.name);
    this.#maxAttempts = options.maxAttempts;
  }

  async publish(message: OutgoingMessage): Promise<void> {
    if (this.#closed) throw new Error('queue closed');
    // Bounded: a queue nobody consumes must not grow the process; the caller (the outbox relay) retries later.
    if (this.#queue.ready.length >= MEMORY_QUEUE_CAPACITY)
      throw new Error(`in-process queue full (${MEMORY_QUEUE_CAPACITY} messages waiting)`);
    this.#queue.ready.push({
      message: { id: message.id, body: Buffer.from(message.body), headers: { ...message.headers } },
      attempt: 1,
    });
    this.#wakeAll();
  }

  async consume(handler: MessageHandler, options: ConsumeOptions): Promise<Consumer> {
    if (this.#closed) throw new Error('queue closed');
    if (!Number.isInteger(options.prefetch) || options.prefetch < 1)
      throw new RangeError('prefetch must be an integer ≥ 1');
    const consumer = new MemoryConsumer(this.#queue, handler, options.prefetch, this.#maxAttempts, () =>
      this.#consumers.delete(consumer),
    );
    this.#consumers.add(consumer);
    consumer.pump();
    return consumer;
  }

  async takeDeadLetter(): Promise<Delivery | undefined> {
    return this.#queue.dead.shift();
  }

  async healthy(): Promise<string | undefined> {
    return this.#closed ? 'queue closed' : undefined;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const consumer of [...this.#consumers]) consumer.abandon();
  }

  #wakeAll(): void {
    for (const wake of [...this.#queue.wake]) wake();
  }
}

class MemoryConsumer implements Consumer {
  readonly #inFlight = new Map<Stored, Promise<void>>();
  readonly #wake = () => this.pump();
  #stopped = false;

  constructor(
    private readonly queue: { ready: Stored[]; dead: Delivery[]; wake: Set<() => void> },
    private readonly handler: MessageHandler,
    private readonly prefetch: number,
    private readonly maxAttempts: number,
    private readonly onGone: () => void,
  ) {
    queue.wake.add(this.#wake);
  }

  pump(): void {
    while (!this.#stopped && this.#inFlight.size < this.prefetch && this.queue.ready.length > 0) {
      const stored = this.queue.ready.shift()!;
      this.#inFlight.set(stored, this.#handle(stored));
    }
  }

  async #handle(stored: Stored): Promise<void> {
    let ok = false;
    try {
      // A macrotask first: like a broker delivery, the handler never runs inside publish().
      await new Promise((resolve) => setImmediate(resolve));
      await this.handler({ ...stored.message, attempt: stored.attempt });
      ok = true;
    } catch {
      ok = false;
    }
    if (!this.#inFlight.has(stored)) return; // abandoned (connection closed): already given back
    this.#inFlight.delete(stored);
    if (!ok) this.#giveBack(stored);
    for (const wake of [...this.queue.wake]) wake();
  }

  #giveBack(stored: Stored): void {
    if (stored.attempt >= this.maxAttempts) {
      this.queue.dead.push({ ...stored.message, attempt: stored.attempt });
      if (this.queue.dead.length > MEMORY_DEAD_LETTER_CAPACITY) this.queue.dead.shift();
    } else this.queue.ready.unshift({ message: stored.message, attempt: stored.attempt + 1 });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.queue.wake.delete(this.#wake);
    await Promise.all([...this.#inFlight.values()]);
    this.onGone();
  }

  /** The connection is gone: unsettled deliveries count as failed and go back at once. */
  abandon(): void {
    this.#stopped = true;
    this.queue.wake.delete(this.#wake);
    for (const stored of [...this.#inFlight.keys()].reverse()) this.#giveBack(stored);
    this.#inFlight.clear();
    this.onGone();
    for (const wake of [...this.queue.wake]) wake();
  }
}
