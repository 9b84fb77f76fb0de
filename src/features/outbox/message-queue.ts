import { serviceKey } from '../../host/container/service-key.js';
/** A message as the API publishes it: a unique id (consumers dedupe by it), a body and string headers. */
export interface OutgoingMessage {
  readonly id: string;
  readonly body: Buffer;
  /** e.g. `tenant_id`, `traceparent`: what the next hop restores before its handler runs. */
  readonly headers: Readonly<Record<string, string>>;
}

/** A message as a consumer receives it. */
export interface Delivery extends OutgoingMessage {
  /** 1 on the first delivery; one more for every delivery that was not acknowledged (failed handler, lost consumer). */
  readonly attempt: number;
}

/**
 * Settles one delivery: resolving acknowledges it; throwing gives it back for redelivery, and a message
 * that has been delivered `maxAttempts` times goes to the dead-letter queue instead.
 */
export type MessageHandler = (delivery: Delivery) => Promise<void>;

export interface ConsumeOptions {
  /** Deliveries handed out and not yet settled, at most. */
  readonly prefetch: number;
}

export interface Consumer {
  /** Takes no more deliveries and waits for the handlers in flight to settle theirs. */
  stop(): Promise<void>;
}

/**
 * The queue seam (one work queue with a dead-letter queue): RabbitMQ in production, in-process for
 * `npm start` and tests. Both run the contract suite in `test/features/outbox/message-queue.case.ts`.
 */
export interface MessageQueue {
  /** Resolves once the broker holds the message (publisher confirm); rejects when it does not. */
  publish(message: OutgoingMessage): Promise<void>;
  /** Starts a consumer with manual acknowledgement (see MessageHandler). */
  consume(handler: MessageHandler, options: ConsumeOptions): Promise<Consumer>;
  /** Removes and returns the oldest dead-lettered message, if any (operations and tests). */
  takeDeadLetter(): Promise<Delivery | undefined>;
  /** Undefined when the broker answers; else why not (the `broker` health check). */
  healthy(): Promise<string | undefined>;
  /** Closes the connection; deliveries not yet acknowledged go back to the queue. */
  close(): Promise<void>;
}

/** What every implementation is built from (config `Queue:*`). */
export interface QueueOptions {
  /** The work queue; its dead-letter queue is `{name}.dead`. */
  readonly name: string;
  /** Deliveries of one message before it is dead-lettered (≥ 1). */
  readonly maxAttempts: number;
}

/** The queue the outbox relay publishes to and the worker consumes from. */
export const MESSAGE_QUEUE = serviceKey<MessageQueue>('messageQueue');
