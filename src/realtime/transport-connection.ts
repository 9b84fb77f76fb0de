import { ConflatingOutbox } from '../wire/conflating-outbox.js';
import type { DeliveryRecorder } from '../wire/delivery-recorder.js';
import type { CloseReason, MessageCodec, OutboundMessage } from '../wire/message.js';
import { HeldReadings } from '../wire/held-readings.js';
import type { HubConnection } from './hub-connection.js';
import { readingGroup } from '../wire/reading-fields.js';
import type { Transport } from './transport.js';

export interface TransportConnectionOptions<F> {
  readonly id: string;
  /** The transport's name (`socketio`, `webpubsub`, `memory`): connections are counted by it. */
  readonly transportName: string;
  readonly userId: string | undefined;
  readonly tenantId: string | undefined;
  /** The wire form this connection's client reads; every message is encoded with it once for all members. */
  readonly codec: MessageCodec<F>;
  readonly transport: Transport<F>;
  /** Messages without a conflation key held while the transport is full. Default 1000 (the outbox's). */
  readonly maxUnkeyed?: number | undefined;
  /** Deliveries of this transport, for telemetry. Default: none. */
  readonly recorder?: DeliveryRecorder | undefined;
  /**
   * A message the codec could not encode (e.g. a BigInt in json data): it is dropped and the
   * connection carries on. Without it the error reaches the sender.
   */
  readonly onEncodeError?: ((err: unknown) => void) | undefined;
  /**
   * Keep track of the readings the outbox holds back, so that `replayHeld` can hand them to a
   * replay from the history instead of their conflated remains (a reliable session recovering).
   */
  readonly trackHeldReadings?: boolean | undefined;
}

/** Starts a replay of a group's readings after `since`; false when it cannot (the held ones then stay). */
export type ReplayFrom = (group: string, since: number) => boolean;

/**
 * The hub's one connection class: a reading goes from the hub's `send` through the slow-consumer
 * outbox, is encoded (once per codec, shared by every member) and written to the transport, with
 * no hop back through the adapter in between. Transports differ only in their Transport and codec;
 * a client that reads slower than it is sent keeps the newest pending message per conflation key.
 */
export class TransportConnection<F> implements HubConnection {
  readonly id: string;
  readonly transport: string;
  readonly userId: string | undefined;
  readonly tenantId: string | undefined;

  readonly #codec: MessageCodec<F>;
  readonly #socket: Transport<F>;
  readonly #outbox: ConflatingOutbox;
  readonly #onEncodeError: ((err: unknown) => void) | undefined;
  readonly #held: HeldReadings | undefined;
  #noEcho: WeakSet<OutboundMessage> | undefined = undefined;
  #ended = false;

  constructor(options: TransportConnectionOptions<F>) {
    this.id = options.id;
    this.transport = options.transportName;
    this.userId = options.userId;
    this.tenantId = options.tenantId;
    this.#codec = options.codec;
    this.#socket = options.transport;
    this.#onEncodeError = options.onEncodeError;
    this.#held = options.trackHeldReadings === true ? new HeldReadings() : undefined;
    this.#outbox = new ConflatingOutbox({
      write: (m) => this.#write(m),
      recorder: options.recorder,
      ...(options.maxUnkeyed === undefined ? {} : { maxUnkeyed: options.maxUnkeyed }),
    });
    options.transport.onDrain(() => this.drainOutbox());
  }

  /** Messages held back while the transport is full. */
  get pending(): number {
    return this.#outbox.pendingCount;
  }

  /** Messages replaced by a newer one of the same key while this client was behind. */
  get conflated(): number {
    return this.#outbox.conflated;
  }

  /** What the client has not taken yet from the socket, in the transport's unit. */
  get bufferedAmount(): number {
    return this.#socket.bufferedAmount;
  }

  /** Ended for good: nothing more is written. */
  get ended(): boolean {
    return this.#ended;
  }

  /** HubConnection.send: never blocks; past the outbox's bound the connection is too slow. */
  send(message: OutboundMessage): void {
    if (this.#ended || this.#noEcho?.has(message) === true) return;
    const offered = this.#outbox.offer(message);
    if (offered === 'overflow') this.overflowed();
    else if (offered !== 'written') this.#held?.held(message);
  }

  drained(): Promise<void> {
    return this.#outbox.idle();
  }

  /** noEcho: this connection published `message` and must not receive it back. */
  excludeEcho(message: OutboundMessage): void {
    this.#noEcho ??= new WeakSet();
    this.#noEcho.add(message);
  }

  /** HubConnection.close: the hub already forgot this connection. */
  close(reason: CloseReason): void {
    this.endOutbox();
    this.#socket.close(reason);
  }

  /** The outbox lost messages: the client is too slow to keep. Closes it with `policy` unless a transport says otherwise. */
  protected overflowed(): void {
    this.close('policy');
  }

  /** The transport can take more: the outbox writes what it holds. */
  protected drainOutbox(): void {
    if (this.#ended) return;
    this.#outbox.drain();
    if (this.#outbox.pendingCount === 0) this.#held?.clear();
  }

  /**
   * Hands every group with readings held back in the outbox to `replay`, with the seq its client
   * has them up to; where it starts one, the held readings of the group are dropped (the replay
   * brings them all, where the outbox kept only the newest). Needs `trackHeldReadings`.
   */
  protected replayHeld(replay: ReplayFrom): void {
    const held = this.#held;
    if (held === undefined || held.size === 0) return;
    const groups = new Set<string>();
    for (const message of this.#outbox.pendingMessages()) {
      const group = readingGroup(message);
      if (group !== undefined) groups.add(group);
    }
    const replayed = new Set<string>();
    for (const group of groups) {
      const since = held.since(group);
      if (since !== undefined && replay(group, since)) replayed.add(group);
    }
    if (replayed.size === 0) return;
    for (const group of replayed) held.delete(group);
    this.#outbox.discard((message) => {
      const group = readingGroup(message);
      return group !== undefined && replayed.has(group);
    });
    if (this.#outbox.pendingCount === 0) held.clear();
  }

  /** Stops taking messages and drops what is pending. */
  protected endOutbox(): void {
    this.#ended = true;
    this.#outbox.clear();
    this.#held?.clear();
  }

  /** The outbox's write: the `stream.write` convention of Transport.write. */
  #write(message: OutboundMessage): boolean {
    let frame: F;
    try {
      frame = message.encoded(this.#codec);
    } catch (err) {
      if (this.#onEncodeError === undefined) throw err;
      this.#onEncodeError(err);
      return true; // nothing was written: the transport is as full as before
    }
    this.#held?.written(message);
    return this.#socket.write(frame);
  }
}
