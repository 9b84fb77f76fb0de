import type { Channel, ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { Backoff } from '../../host/backoff.js';
import type {
  Consumer,
  ConsumeOptions,
  Delivery,
  MessageHandler,
  MessageQueue,
  OutgoingMessage,
  QueueOptions,
} from '../../features/outbox/message-queue.js';

/** Connecting, and each broker round trip we wait on, gives up after this. */
const TIMEOUT_MS = 5000;

/**
 * The queue on RabbitMQ (`ConnectionStrings:rabbitmq`). The work queue is a quorum queue whose
 * `x-delivery-limit` makes the broker itself count deliveries (also the ones lost with a crashed
 * consumer, which a worker-side counter would miss) and dead-letter a message delivered `maxAttempts`
 * times to `{name}.dead`. Publishes wait for the broker's confirm. A lost connection is reopened on the
 * next publish, and consumers resume by themselves with backed-off retries.
 */
export class RabbitMqQueue implements MessageQueue {
  #connection: Promise<ChannelModel> | undefined;
  #publisher: Promise<ConfirmChannel> | undefined;
  /** Set while the publisher's buffer is full; later publishes wait for its drain. */
  #drained: Promise<void> | undefined;
  readonly #consumers = new Set<RabbitConsumer>();
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly options: QueueOptions,
    private readonly log: Logger,
  ) {
    if (!Number.isInteger(options.maxAttempts) || options.maxAttempts < 1)
      throw new RangeError('maxAttempts must be an integer ≥ 1');
  }

  get name(): string {
    return this.options.name;
  }

  get deadLetterName(): string {
    return `${this.options.name}.dead`;
  }

  /** The open connection with the queues declared, opening it when there is none. */
  connection(): Promise<ChannelModel> {
    if (this.#closed) return Promise.reject(new Error('queue closed'));
    this.#connection ??= this.#open().catch((err: unknown) => {
      this.#connection = undefined;
      throw err;
    });
    return this.#connection;
  }

  async #open(): Promise<ChannelModel> {
    // Loaded on first use: a hub on the in-process queue never pays for it at start.
    const { default: amqp } = await import('amqplib');
    const connection = await amqp.connect(this.url, { timeout: TIMEOUT_MS });
    connection.on('error', (err: Error) => this.log.warn({ err: err.message }, 'rabbitmq connection error'));
    connection.on('close', () => {
      this.#connection = undefined;
      this.#publisher = undefined;
      this.#drained = undefined;
      if (!this.#closed) this.log.warn('rabbitmq connection closed');
    });
    const channel = await connection.createChannel();
    channel.on('error', () => {});
    await channel.assertQueue(this.deadLetterName, { durable: true });
    await channel.assertQueue(this.options.name, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        // Redeliveries allowed after the first delivery.
        'x-delivery-limit': this.options.maxAttempts - 1,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': this.deadLetterName,
      },
    });
    await channel.close();
    return connection;
  }

  #publisherChannel(): Promise<ConfirmChannel> {
    this.#publisher ??= this.connection()
      .then(async (connection) => {
        const channel = await connection.createConfirmChannel();
        channel.on('error', () => {});
        channel.on('close', () => (this.#publisher = undefined));
        return channel;
      })
      .catch((err: unknown) => {
        this.#publisher = undefined;
        throw err;
      });
    return this.#publisher;
  }

  async publish(message: OutgoingMessage): Promise<void> {
    const channel = await this.#publisherChannel();
    if (this.#drained) await this.#drained;
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        const accepted = channel.publish(
          '',
          this.options.name,
          message.body,
          { persistent: true, messageId: message.id, headers: { ...message.headers }, contentType: 'application/json' },
          (err: unknown) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve()),
        );
        if (!accepted && !this.#drained) {
          this.#drained = new Promise<void>((done) =>
            channel.once('drain', () => ((this.#drained = undefined), done())),
          );
        }
      }),
      'publish confirm',
    );
  }

  async consume(handler: MessageHandler, options: ConsumeOptions): Promise<Consumer> {
    if (!Number.isInteger(options.prefetch) || options.prefetch < 1)
      throw new RangeError('prefetch must be an integer ≥ 1');
    const consumer = new RabbitConsumer(this, handler, options.prefetch, this.log, () =>
      this.#consumers.delete(consumer),
    );
    this.#consumers.add(consumer);
    await consumer.start();
    return consumer;
  }

  async takeDeadLetter(): Promise<Delivery | undefined> {
    const channel = await (await this.connection()).createChannel();
    try {
      const message = await channel.get(this.deadLetterName, { noAck: false });
      if (message === false) return undefined;
      channel.ack(message);
      return toDelivery(message);
    } finally {
      await channel.close().catch(() => {});
    }
  }

  async healthy(): Promise<string | undefined> {
    try {
      await withTimeout(this.connection(), 'connect');
      return undefined;
    } catch (err) {
      return `rabbitmq unreachable: ${(err as Error).message}`;
    }
  }

  async close(): Promise<void> {
    for (const consumer of [...this.#consumers]) consumer.abandon();
    const connection = this.#connection;
    this.#closed = true;
    if (connection) await (await connection.catch(() => undefined))?.close().catch(() => {});
  }

  get closed(): boolean {
    return this.#closed;
  }
}

class RabbitConsumer implements Consumer {
  #channel: Channel | undefined;
  #tag: string | undefined;
  #stopped = false;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #backoff = new Backoff(500, 15_000);
  #retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: RabbitMqQueue,
    private readonly handler: MessageHandler,
    private readonly prefetch: number,
    private readonly log: Logger,
    private readonly onGone: () => void,
  ) {}

  /** Opens a channel and consumes; when the channel is lost, tries again until stopped. */
  async start(): Promise<void> {
    const channel = await (await this.queue.connection()).createChannel();
    channel.on('error', () => {});
    channel.on('close', () => {
      if (this.#channel !== channel) return;
      this.#channel = undefined;
      if (!this.#stopped && !this.queue.closed) this.#scheduleRestart();
    });
    await channel.prefetch(this.prefetch);
    this.#channel = channel;
    const { consumerTag } = await channel.consume(this.queue.name, (message) => {
      if (message !== null) this.#track(this.#handle(channel, message));
    });
    this.#tag = consumerTag;
    this.#backoff.reset();
  }

  #scheduleRestart(): void {
    const delay = this.#backoff.next();
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.start().then(
        () => this.log.info('rabbitmq consumer resumed'),
        (err: unknown) => {
          this.log.warn({ err: (err as Error).message, retryInMs: delay }, 'rabbitmq consumer could not resume');
          if (!this.#stopped && !this.queue.closed) this.#scheduleRestart();
        },
      );
    }, delay);
    this.#retry.unref();
  }

  async #handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    let ok = false;
    try {
      await this.handler(toDelivery(message));
      ok = true;
    } catch (err) {
      this.log.warn(
        { messageId: message.properties.messageId, err: (err as Error).message },
        'message handler failed; message given back',
      );
    }
    try {
      // On a closed channel these throw; the broker gives the message back by itself then.
      if (ok) channel.ack(message);
      else channel.nack(message, false, true);
    } catch {}
  }

  #track(work: Promise<void>): void {
    this.#inFlight.add(work);
    void work.finally(() => this.#inFlight.delete(work));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    const channel = this.#channel;
    if (channel && this.#tag) await channel.cancel(this.#tag).catch(() => {});
    await Promise.all([...this.#inFlight]);
    this.#channel = undefined;
    await channel?.close().catch(() => {});
    this.onGone();
  }

  /** The connection is closing: no waiting; unacknowledged deliveries go back with it. */
  abandon(): void {
    this.#stopped = true;
    clearTimeout(this.#retry);
    this.#channel = undefined;
    this.onGone();
  }
}

function toDelivery(message: {
  content: Buffer;
  properties: { messageId?: string; headers?: Record<string, unknown> };
}): Delivery {
  const raw = message.properties.headers ?? {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    // Broker bookkeeping (x-delivery-count, x-death, x-first-death-*) is not the sender's.
    if (!name.startsWith('x-') && typeof value === 'string') headers[name] = value;
  }
  const previous = Number(raw['x-delivery-count'] ?? 0);
  return {
    id: message.properties.messageId ?? '',
    body: message.content,
    headers,
    attempt: (Number.isInteger(previous) ? previous : 0) + 1,
  };
}

function withTimeout<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    work,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`rabbitmq ${what} timed out after ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}
