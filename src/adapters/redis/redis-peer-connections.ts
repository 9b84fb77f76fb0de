import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { REDIS_COMMAND_TIMEOUT_MS } from './bounded-redis-options.js';
import type { RedisClient } from './redis-connection.js';
import { publishOn, subscriberFor, type Subscriber } from './shard-subscriber.js';
import type { HostedService } from '../../host/lifecycle/hosted-service.js';
import { LogThrottle } from '../../host/log-throttle.js';
import type { PeerConnections, PeerReply, PeerRequest } from '../../realtime/peer-connections.js';

interface Asked {
  id: string;
  from: string;
  request: PeerRequest;
}

interface Answered {
  id: string;
  reply: PeerReply;
}

interface Waiting {
  replies: PeerReply[];
  expected: number;
  done: () => void;
}

/**
 * Management requests between instances over Redis pub/sub, with no directory to keep: a request
 * goes to one channel every instance subscribes to, and PUBLISH answers how many subscribers got
 * it, so the asker knows how many answers to wait for (an instance that died has no subscription
 * left). Each instance answers on the asker's own channel. Answers are awaited at most the Redis
 * command timeout; an instance that does not answer in time counts as not having the connection.
 */
export class RedisPeerConnections implements PeerConnections, HostedService {
  readonly name = 'peer-connections';
  readonly #pub: RedisClient;
  readonly #sub: Subscriber;
  readonly #requests: string;
  readonly #replies: string;
  readonly #prefix: string;
  readonly #me = randomUUID();
  readonly #waiting = new Map<string, Waiting>();
  readonly #faults: LogThrottle;
  readonly #log: Logger;
  #handler: ((request: PeerRequest) => PeerReply) | undefined;

  /** On a cluster (`pub` a cluster client) `keyPrefix` has a hash tag: both channels share a slot and a shard. */
  constructor(options: { url: string; keyPrefix: string; pub: RedisClient; log: Logger }) {
    this.#pub = options.pub;
    this.#prefix = `${options.keyPrefix}peers:`;
    this.#requests = `${this.#prefix}ask`;
    this.#sub = subscriberFor(this.#pub, options.url, this.#requests);
    this.#replies = `${this.#prefix}answer:${this.#me}`;
    this.#log = options.log;
    this.#faults = new LogThrottle(options.log);
    this.#sub.on('error', (err: Error) => this.#faults.warn({ err: { message: err.message } }, 'redis error'));
    this.#sub.on('ready', () => {
      this.#sub
        .subscribe(this.#requests, this.#replies)
        .catch((err: Error) => this.#faults.warn({ err: { message: err.message } }, 'peer channels not subscribed'));
    });
    this.#sub.on('message', (channel: string, text: string) => this.#receive(channel, text));
  }

  async start(): Promise<void> {
    try {
      await this.#sub.connect();
    } catch (err) {
      this.#log.warn(
        { err: { message: (err as Error).message } },
        'redis not reachable at start; management reaches other instances once it is',
      );
    }
  }

  async stop(): Promise<void> {
    for (const waiting of this.#waiting.values()) waiting.done();
    if (this.#sub.status === 'ready') await this.#sub.quit().catch(() => this.#sub.disconnect());
    else this.#sub.disconnect();
  }

  serve(handler: (request: PeerRequest) => PeerReply): void {
    this.#handler = handler;
  }

  async ask(request: PeerRequest): Promise<PeerReply[]> {
    if (this.#pub.status !== 'ready' || this.#sub.status !== 'ready') return [];
    const id = randomUUID();
    const replies: PeerReply[] = [];
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiting.delete(id);
        resolve();
      };
      this.#waiting.set(id, { replies, expected: Infinity, done });
      timer = setTimeout(done, REDIS_COMMAND_TIMEOUT_MS);
    });
    try {
      const receivers = await publishOn(
        this.#pub,
        this.#requests,
        JSON.stringify({ id, from: this.#me, request } satisfies Asked),
      );
      const waiting = this.#waiting.get(id);
      if (waiting !== undefined) {
        // Every subscriber but this instance answers.
        waiting.expected = receivers - 1;
        if (replies.length >= waiting.expected) waiting.done();
      }
    } catch (err) {
      this.#faults.warn({ err: { message: (err as Error).message } }, 'peer request not sent');
      this.#waiting.get(id)?.done();
    }
    await finished;
    return replies;
  }

  #receive(channel: string, text: string): void {
    try {
      if (channel === this.#requests) this.#answer(JSON.parse(text) as Asked);
      else if (channel === this.#replies) this.#collect(JSON.parse(text) as Answered);
    } catch {
      this.#log.warn('malformed peer message ignored');
    }
  }

  #answer(asked: Asked): void {
    if (asked.from === this.#me || this.#handler === undefined) return;
    const reply = this.#handler(asked.request);
    publishOn(
      this.#pub,
      `${this.#prefix}answer:${asked.from}`,
      JSON.stringify({ id: asked.id, reply } satisfies Answered),
    ).catch((err: Error) => {
      this.#faults.warn({ err: { message: err.message } }, 'peer answer not sent');
    });
  }

  #collect(answered: Answered): void {
    const waiting = this.#waiting.get(answered.id);
    if (waiting === undefined) return;
    waiting.replies.push(answered.reply);
    if (waiting.replies.length >= waiting.expected) waiting.done();
  }
}
